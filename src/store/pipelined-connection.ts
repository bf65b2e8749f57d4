import pg from 'pg';
import { READ_TIMEOUT } from '../shared/database-unavailable.js';
import { CONNECT_LIMIT_MS, isReadTimeout } from './connection-limits.js';
import { BATCH_LOCK_WAIT_MS } from './writer-query.js';

/** How a writer's own connection meets a database that does not answer. */
export interface PipelinedConnectionLimits {
  /**
   * How long a statement sent may wait for its answer before the connection is given up (0, the
   * default: no limit); what was sent on it then fails, and the next statement opens a new one.
   */
  readonly answerLimitMs?: number;
  /** Other than CONNECT_LIMIT_MS only for tests of a connection that never opens. */
  readonly connectLimitMs?: number;
  /** Told of each connection given up (counted for /metrics, db.ts). */
  readonly onGiveUp?: () => void;
}

/**
 * A PostgreSQL connection of a writer's own on which statements are sent one behind the other
 * without waiting for the answers (the protocol's pipeline mode; docs/decisions.md, "Orders in one
 * statement": the pipeline). Each statement is its own implicit transaction with its own Sync, so
 * one that fails fails alone and the ones behind it run as usual; the server runs them in the order
 * they were sent, in one backend, each after the one before has committed.
 *
 * A statement is written to the socket in the same turn as `query` is called once the connection
 * is open: nothing waits for a pool or a later turn of the event loop. Statements are prepared by
 * name once per connection. A connection that breaks fails what was sent on it; the next statement
 * opens a new one. A statement waits at most BATCH_LOCK_WAIT_MS for a row another session holds
 * (src/store/writer-query.ts): behind it, every statement of the writer would wait as well.
 */
export class PipelinedConnection {
  readonly #connectionString: string;
  #client: pg.Client | null = null;
  /** The connection being opened, until it is open (then `#client`) or has failed. */
  #opening: Promise<pg.Client> | null = null;
  #closed = false;
  readonly #limits: Required<PipelinedConnectionLimits>;
  /** Connections given up because a statement sent on them was not answered in time. */
  readonly #givenUp = new WeakSet<pg.Client>();

  constructor(connectionString: string, limits: PipelinedConnectionLimits = {}) {
    this.#connectionString = connectionString;
    this.#limits = {
      answerLimitMs: limits.answerLimitMs ?? 0,
      connectLimitMs: limits.connectLimitMs ?? CONNECT_LIMIT_MS,
      onGiveUp: limits.onGiveUp ?? (() => {}),
    };
  }

  /**
   * Runs the statement prepared under `name` (prepared from `text` the first time). One that fails
   * is answered once its transaction has ended: the server reports the error before it gives back
   * the locks the statement held, so a write repeated at once on another connection could still
   * find them taken (an Idempotency-Key's lock: "in flight"). A statement sent behind it on this
   * connection is answered only after that, so its answer is awaited first.
   */
  async query<R>(name: string, text: string, values: readonly unknown[]): Promise<R[]> {
    const client = this.#client ?? (await this.#open());
    try {
      const result = await client.query<R & pg.QueryResultRow>({ name, text, values: [...values] });
      return result.rows;
    } catch (err) {
      if (isReadTimeout(err) || this.#givenUp.has(client)) throw this.#unanswered(client, err);
      await client.query('SELECT 1').catch(() => undefined);
      throw err;
    }
  }

  /**
   * A statement not answered in time (the driver is ending its connection), or one sent behind it
   * on the same connection: the connection is given up at once, so that the next statement opens a
   * new one whenever the driver's end is heard, and counted once; each fails as silent, so that its
   * writer answers its items at once (src/shared/database-unavailable.ts, `isDatabaseSilent`), not
   * as a connection the server ended.
   */
  #unanswered(client: pg.Client, err: unknown): unknown {
    if (this.#client === client) this.#client = null;
    if (!this.#givenUp.has(client)) {
      this.#givenUp.add(client);
      this.#limits.onGiveUp();
    }
    if (isReadTimeout(err)) return err;
    return new Error(`${READ_TIMEOUT} (a statement sent before this one was not answered in time)`, {
      cause: err,
    });
  }

  /** Ends the connection; statements sent before are answered first. */
  async close(): Promise<void> {
    this.#closed = true;
    const client = this.#client ?? (await this.#opening?.catch(() => null)) ?? null;
    this.#client = null;
    this.#opening = null;
    await client?.end().catch(() => undefined);
  }

  #open(): Promise<pg.Client> {
    if (this.#closed) return Promise.reject(new Error('the pipelined connection is closed'));
    if (this.#opening) return this.#opening;
    const client = new pg.Client({
      connectionString: this.#connectionString,
      pipeline: true,
      connectionTimeoutMillis: this.#limits.connectLimitMs,
      // In pipeline mode the driver ends the connection itself when a statement sent on it is not
      // answered in time: every statement sent behind it fails with it.
      ...(this.#limits.answerLimitMs > 0 ? { query_timeout: this.#limits.answerLimitMs } : {}),
    });
    const forget = () => {
      if (this.#client === client) this.#client = null;
      if (this.#opening === opening) this.#opening = null;
    };
    // A connection dropped by the server must not take the process down: the statements sent on
    // it fail (their writer retries them) and the next one opens a new connection.
    client.on('error', forget);
    client.on('end', forget);
    const opening = client
      .connect()
      .then(() => client.query(`SET lock_timeout = ${BATCH_LOCK_WAIT_MS}`))
      .then(
        () => {
          if (this.#opening === opening) {
            this.#client = client;
            this.#opening = null;
          }
          return client;
        },
        (err: unknown) => {
          forget();
          void client.end().catch(() => undefined);
          throw unopened(err);
        },
      );
    this.#opening = opening;
    return opening;
  }
}

/**
 * The driver's words when a connection did not open within its `connectionTimeoutMillis`: it
 * destroys the socket with this error, which has no code.
 */
const CONNECT_TIMEOUT = 'timeout expired';

/**
 * A connection that could not be opened is given an SQLSTATE when the server and the socket named
 * none (docs/decisions.md, "A database that does not answer is a 503, not a 500"): 08001, unable to
 * establish a connection, when the driver's own limit ran out (the database or the network to it
 * silent: its writer answers its items at once, `isDatabaseSilent`); 08006, connection failure,
 * when the connection was ended while it was being opened (the server ending the session, a
 * restart, a network that dropped it), which a writer treats as any connection cut: its items are
 * written again, and may find a connection that opens. An error with a code of its own (a refused
 * connection, a wrong password) keeps it.
 */
function unopened(err: unknown): unknown {
  if (typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string') {
    return err;
  }
  const reason = err instanceof Error ? err.message : String(err);
  const [code, text] =
    reason === CONNECT_TIMEOUT
      ? ['08001', 'No connection to the database could be opened']
      : ['08006', 'The connection to the database was ended while it was being opened'];
  return Object.assign(new Error(`${text} (${reason}).`, { cause: err }), { code });
}
