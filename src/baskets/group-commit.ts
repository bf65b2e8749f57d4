export interface GroupCommitOptions {
  /** Batches written at the same time (PostgreSQL: connections of the pool given to this writer). */
  readonly concurrency: number;
  /** Largest number of items in one batch. */
  readonly maxBatch: number;
}

interface Pending<I, O> {
  readonly item: I;
  resolve(outcome: O): void;
  reject(err: unknown): void;
}

/**
 * Group commit (docs/decisions.md "Basket uploads are written with group commit"). An item that
 * finds a free slot goes to the database right after the current turn of the event loop, together
 * with the items of that turn; items that arrive while all slots are busy wait and then go
 * together. `execute` writes a batch in one statement and one transaction and answers one outcome
 * per item, in the order of the items; each item is answered only after its batch committed.
 *
 * A batch that fails as a whole (a deadlock with another batch, a broken connection) is written
 * again item by item, so that one item's trouble is only its own.
 */
export class GroupCommit<I, O> {
  readonly #options: GroupCommitOptions;
  readonly #execute: (items: readonly I[]) => Promise<O[]>;
  #queue: Pending<I, O>[] = [];
  #inFlight = 0;

  constructor(options: GroupCommitOptions, execute: (items: readonly I[]) => Promise<O[]>) {
    this.#options = options;
    this.#execute = execute;
  }

  submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (this.#inFlight < this.#options.concurrency) {
        // The slot is taken now and the batch goes after this turn of the event loop, so that
        // the requests read in the same turn go with it (the embedded database runs a statement
        // without giving the event loop back: nothing could join while it runs).
        this.#inFlight += 1;
        setImmediate(() => void this.#flush());
      }
    });
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
    try {
      const outcomes = await this.#execute(batch.map((p) => p.item));
      batch.forEach((p, i) => {
        const outcome = outcomes[i];
        if (outcome === undefined) p.reject(new Error('the batch answered no outcome for an item'));
        else p.resolve(outcome);
      });
    } catch (err) {
      if (batch.length === 1) {
        batch[0]?.reject(err);
        return;
      }
      for (const p of batch) {
        try {
          const [outcome] = await this.#execute([p.item]);
          if (outcome === undefined) p.reject(new Error('the batch answered no outcome for an item'));
          else p.resolve(outcome);
        } catch (one) {
          p.reject(one);
        }
      }
    }
  }
}

/**
 * The items of a batch with their places, sorted by terminal and basket: a fixed order of rows
 * keeps two batches from locking in opposite order. The sort is stable, so a basket sent twice is
 * written in the order the requests came.
 */
export function inBasketOrder<T extends { readonly unitId: string; readonly basketId: string }>(
  items: readonly T[],
): { item: T; index: number }[] {
  const key = (t: T) => `${t.unitId}\u0000${t.basketId}`;
  return items
    .map((item, index) => ({ item, index, k: key(item) }))
    .sort((a, b) => (a.k < b.k ? -1 : a.k > b.k ? 1 : 0))
    .map(({ item, index }) => ({ item, index }));
}
