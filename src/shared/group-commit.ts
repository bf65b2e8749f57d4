/**
 * The queue of group commit (docs/decisions.md, "Foundation": basket uploads; "Checkout v1: orders
 * in one statement"): writes that arrive while the database is busy go together. A write that
 * finds a free slot takes it at once and its batch goes right after the current turn of the event
 * loop, together with the writes of that turn (the embedded database runs a statement without
 * giving the event loop back: nothing could join while it runs); writes that arrive while every
 * slot is busy wait and then go together, up to `maxBatch`. `writeBatch` settles every write of
 * its batch itself and never throws.
 */
export class GroupCommitQueue<T> {
  readonly #concurrency: number;
  readonly #maxBatch: number;
  readonly #writeBatch: (batch: T[]) => Promise<void>;
  #queue: T[] = [];
  #inFlight = 0;

  constructor(
    options: { readonly concurrency: number; readonly maxBatch: number },
    writeBatch: (batch: T[]) => Promise<void>,
  ) {
    this.#concurrency = options.concurrency;
    this.#maxBatch = options.maxBatch;
    this.#writeBatch = writeBatch;
  }

  push(write: T): void {
    this.#queue.push(write);
    if (this.#inFlight < this.#concurrency) {
      this.#inFlight += 1;
      setImmediate(() => void this.#flush());
    }
  }

  /** Writes batches until the queue is empty; the caller has taken the slot. */
  async #flush(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        await this.#writeBatch(this.#queue.splice(0, this.#maxBatch));
      }
    } finally {
      this.#inFlight -= 1;
    }
  }
}
