import {
  isDatabaseSilent,
  isDatabaseUnavailable,
  isRowLockedTooLong,
  isStatementTimedOut,
} from './database-unavailable.js';

/**
 * How a batch is written: `batch` the usual way; `alone` for an item of a batch that found a row
 * locked by another session for longer than a batch may wait, written on its own beside the
 * batches and waiting as briefly (the items that do not need that row are answered at once);
 * `waiting` for an item that found the row locked so itself, written where it may wait longer.
 */
export type WriteWay = 'batch' | 'alone' | 'waiting';

/**
 * Items of one writer written the `waiting` way at once. Each waiting item holds a connection of
 * the pool for as long as it may wait, and a row that many requests need (a card many tills book
 * on) held by another session must not take the pool from everything else: an item that finds a
 * row held while one waits is set aside, holding no connection, until that wait ends.
 */
const WAITING_AT_ONCE = 1;

/**
 * Times one item may be set aside. Each time it is written again only after a waiting item got
 * its row, so the rows are moving; the bound keeps a till from going round for ever behind a row
 * that many requests take in turn.
 */
const SET_ASIDE_AT_MOST = 3;

export interface GroupCommitOptions {
  /** Batches written at the same time (PostgreSQL: connections of the pool given to this writer). */
  readonly concurrency: number;
  /** Largest number of items in one batch. */
  readonly maxBatch: number;
  /**
   * Items that must be waiting before a further batch starts while one is being written (default
   * 1: every free slot is used at once). With `maxBatch`, one batch is written at a time and the
   * items that arrive meanwhile go together in the next one; a second batch starts only when a
   * full batch waits (a batch held up by a lock, or more items than one batch takes).
   */
  readonly openAt?: number;
  /** Sees each batch and each item written on its own (the metrics). */
  readonly observer?: BatchObserver;
}

/**
 * Sees what a writer writes (the metrics, src/ops/write-metrics.ts): each batch its statement
 * answered, with its items and the time from its start to its outcomes (a batch that failed as a
 * whole is not timed: its items are written again on their own), and each item written once more
 * on its own, with the way it was written (after its batch failed as a whole, it failed on its
 * own, or it found a row locked).
 */
export interface BatchObserver {
  batch(items: number, seconds: number): void;
  alone(way: WriteWay): void;
}

interface Pending<I, O> {
  readonly item: I;
  resolve(outcome: O): void;
  reject(err: unknown): void;
  /** Times it was set aside while another item waited for a row (at most SET_ASIDE_AT_MOST). */
  setAside: number;
  /**
   * Set aside behind a wait that ran out and written once more the usual way: a row it finds held
   * now fails it at once, without a wait of its own.
   */
  lastTry?: boolean;
}

/**
 * Group commit (docs/decisions.md "Basket uploads are written with group commit"; grants and
 * checkout orders are written the same way). An item that finds a free slot goes to the database
 * right after the current turn of the event loop, together with the items of that turn; items that
 * arrive while all slots are busy (or, with `openAt`, while fewer than that many wait) go together
 * in the next batch of a slot that finishes. `execute` writes a batch in one statement and one
 * transaction and answers one outcome per item, in the order of the items; each item is answered
 * only after its batch committed.
 *
 * A batch that fails as a whole (a deadlock with another batch, a broken connection) is written
 * again item by item, and so is an item the batch answered no outcome for (`undefined`: it failed
 * on its own, its part of the batch undone), so that one item's trouble is only its own; once one
 * of them finds the database unreachable too, those after it are answered so at once. A batch that
 * found the database silent (no connection opened, or no answer, within the limit) is answered so
 * at once, with the items queued behind it. A batch that failed because a row it needs stayed
 * locked by another session (lock_not_available) has its items written `alone`, outside the slot:
 * the batches behind go on meanwhile, and the items that do not need the row are answered at once.
 * An item that found the row locked itself is written the `waiting` way, WAITING_AT_ONCE of them at
 * a time; the others are set aside until that wait ends: if it ran out (a row held for long), they
 * fail with the lock's error; if it got its row, they are written again the usual way, so that a
 * row many requests take in turn (a card's balance booked by tills and reserved by apps at once)
 * costs them time, not a refusal (docs/decisions.md, "A row locked for long").
 */
export class GroupCommit<I, O> {
  readonly #options: GroupCommitOptions;
  readonly #execute: (items: readonly I[], way: WriteWay) => Promise<(O | undefined)[]>;
  #queue: Pending<I, O>[] = [];
  #inFlight = 0;
  #waiting = 0;
  /** Items set aside while another waits for a row, each with the lock's error it met. */
  #setAside: { readonly p: Pending<I, O>; readonly lockError: unknown }[] = [];
  readonly #observer: BatchObserver | null;

  constructor(
    options: GroupCommitOptions,
    execute: (items: readonly I[], way: WriteWay) => Promise<(O | undefined)[]>,
  ) {
    this.#options = options;
    this.#execute = execute;
    this.#observer = options.observer ?? null;
  }

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => this.#enqueue({ item, resolve, reject, setAside: 0 }));
  }

  /** Queues an item for the next batch, starting one if a slot is free. */
  #enqueue(p: Pending<I, O>): void {
    this.#queue.push(p);
    const waiting = this.#inFlight === 0 ? 1 : (this.#options.openAt ?? 1);
    if (this.#inFlight < this.#options.concurrency && this.#queue.length >= waiting) {
      // The slot is taken now and the batch goes after this turn of the event loop, so that
      // the requests read in the same turn go with it (the embedded database runs a statement
      // without giving the event loop back: nothing could join while it runs).
      this.#inFlight += 1;
      setImmediate(() => void this.#flush());
    }
  }

  /** Writes batches until the queue is empty; the caller has taken the slot. */
  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, this.#options.maxBatch);
        await this.#writeBatch(batch);
      }
    } finally {
      this.#inFlight -= 1;
    }
  }

  async #writeBatch(batch: Pending<I, O>[]): Promise<void> {
    let outcomes: (O | undefined)[];
    const startedMs = performance.now();
    try {
      outcomes = await this.#execute(
        batch.map((p) => p.item),
        'batch',
      );
    } catch (err) {
      if (isRowLockedTooLong(err)) {
        // A batch of one: its item found the row locked itself.
        if (batch.length === 1 && batch[0]) void this.#wait(batch[0], err);
        else for (const p of batch) void this.#alone(p, 'alone');
        return;
      }
      if (isStatementTimedOut(err)) {
        // Past the statement's limit (a row held elsewhere, most likely): its items alone, side by
        // side, so that those that need nothing held are not kept behind the one that does, which
        // answers the limit when it meets it again (docs/decisions.md, "A statement's limit").
        if (batch.length === 1) batch[0]?.reject(err);
        else for (const p of batch) void this.#alone(p, 'alone');
        return;
      }
      if (isDatabaseSilent(err)) {
        this.#silent(batch, err);
        return;
      }
      if (batch.length === 1) {
        batch[0]?.reject(err);
        return;
      }
      await this.#eachAgain(batch);
      return;
    }
    this.#observer?.batch(batch.length, (performance.now() - startedMs) / 1000);
    const failed: Pending<I, O>[] = [];
    batch.forEach((p, i) => {
      const outcome = outcomes[i];
      if (outcome !== undefined) p.resolve(outcome);
      else if (batch.length === 1) p.reject(new Error('the write answered no outcome for its item'));
      else failed.push(p);
    });
    await this.#eachAgain(failed);
  }

  /**
   * A batch that found the database silent: no connection opened within its limit, or its
   * statement not answered within its own (`isDatabaseSilent`). None of its items is the cause.
   * They are answered with that failure at once, and so are the items queued behind it, which
   * waited for the same database meanwhile: written again, each would wait as long again (a
   * connect's limit is 10 s), where the client repeats them after Retry-After (docs/decisions.md,
   * "A database that stops answering"). The items that come after it try a connection of their own.
   */
  #silent(batch: readonly Pending<I, O>[], err: unknown): void {
    for (const p of [...batch, ...this.#queue.splice(0)]) p.reject(err);
  }

  /**
   * The items of a batch that failed as a whole, or that it answered no outcome for, written again
   * one by one the usual way. Once one of them finds the database unreachable as well, those after
   * it are answered with that failure at once, unwritten: each would wait as long again for a
   * connection that cannot be opened (up to its limit, 10 s), and the client repeats them after
   * Retry-After (docs/decisions.md, "A database that does not answer is a 503, not a 500").
   */
  async #eachAgain(items: readonly Pending<I, O>[]): Promise<void> {
    for (const [i, p] of items.entries()) {
      const { error } = await this.#alone(p, 'batch');
      if (error !== null && isDatabaseUnavailable(error)) {
        for (const rest of items.slice(i + 1)) rest.reject(error);
        return;
      }
    }
  }

  /**
   * An item written once more in a batch of its own, `alone` or `waiting` after a row lock held it
   * up. Written so, it may have waited for the session that held the row, and then fail on what
   * that session wrote (a key it stored): as after a batch that failed as a whole, it is written
   * once more the usual way, now that the other session has ended (`waited`: no further turn after
   * that). Answers whether it gave up on a row held past its wait (or past the statement's limit),
   * and the error its write met (null: none).
   */
  async #alone(
    p: Pending<I, O>,
    way: WriteWay,
    waited = false,
  ): Promise<{ heldLong: boolean; error: unknown }> {
    this.#observer?.alone(way);
    try {
      const [outcome] = await this.#execute([p.item], way);
      if (outcome === undefined) p.reject(new Error('the write answered no outcome for its item'));
      else p.resolve(outcome);
      return { heldLong: false, error: null };
    } catch (err) {
      const lockedOut = isRowLockedTooLong(err);
      const timedOut = isStatementTimedOut(err);
      if (timedOut || isDatabaseSilent(err)) p.reject(err);
      else if (lockedOut && way !== 'waiting' && !waited) void this.#wait(p, err);
      else if (!lockedOut && way !== 'batch') void this.#alone(p, 'batch', true);
      else p.reject(err);
      return { heldLong: lockedOut || timedOut, error: err };
    }
  }

  /**
   * An item that found a row locked: written the waiting way if fewer than WAITING_AT_ONCE wait,
   * else set aside until the wait ends (failing with the lock's error once set aside too often, or
   * on its last try).
   */
  async #wait(p: Pending<I, O>, lockError: unknown): Promise<void> {
    if (p.lastTry === true) {
      p.reject(lockError);
      return;
    }
    if (this.#waiting >= WAITING_AT_ONCE) {
      if (p.setAside >= SET_ASIDE_AT_MOST) p.reject(lockError);
      else {
        p.setAside += 1;
        this.#setAside.push({ p, lockError });
      }
      return;
    }
    this.#waiting += 1;
    let heldLong = true;
    try {
      heldLong = (await this.#alone(p, 'waiting')).heldLong;
    } finally {
      this.#waiting -= 1;
      const setAside = this.#setAside.splice(0);
      for (const s of setAside) {
        // A wait that ran out: a row held for long, which they may have found held as well, or
        // another row, held briefly (an order of the same profile in a batch beside them): written
        // once more the usual way, they fail at once if they find a row held again.
        if (heldLong) s.p.lastTry = true;
        this.#enqueue(s.p);
      }
    }
  }
}
