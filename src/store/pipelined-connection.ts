import pg from 'pg';
import { BATCH_LOCK_WAIT_MS } from './writer-query.js';

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
  #opening: Promise<pg.Client> | null = null;
  #closed = false;

  constructor(connectionString: string) {
    this.#connectionString = connectionString;
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
      await client.query('SELECT 1').catch(() => undefined);
      throw err;
    }
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
      connectionTimeoutMillis: 10_000,
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
          if (this.#opening === opening) this.#client = client;
          return client;
        },
        (err: unknown) => {
          forget();
          void client.end().catch(() => undefined);
          throw err;
        },
      );
    this.#opening = opening;
    return opening;
  }
}
