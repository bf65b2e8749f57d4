/**
 * How long a close waits for the work after answers before it cuts off their sends: as long as the
 * outbox's dispatcher gives its own (docs/decisions.md, "Several instances, a pooler, a replica, a
 * failover": a stopped service finishes what is in flight within its 30 s).
 */
export const AFTER_ANSWER_GRACE_MS = 5_000;

/**
 * Work a request starts and its answer does not wait for (the consumer portal's sign-in links:
 * docs/decisions.md, "Consumer portal"), kept track of so that the service's close waits for it
 * before the database and the mailer close: nothing begun for an answered request is cut off
 * half-way by a restart, but a send to the outside that takes longer than the grace.
 */
export class AfterAnswer {
  readonly #pending = new Set<Promise<void>>();
  readonly #stopping = new AbortController();

  constructor(private readonly graceMs = AFTER_ANSWER_GRACE_MS) {}

  /**
   * Starts `task` on the next turn of the event loop; a failure goes to `onError`, never further.
   * The task's sends to the outside take `stop`, which aborts when a close has waited its grace.
   */
  run(task: (stop: AbortSignal) => Promise<void>, onError: (err: unknown) => void): void {
    const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => task(this.#stopping.signal))
      .catch((err: unknown) => {
        try {
          onError(err);
        } catch {
          // A report that fails has nowhere further to go; the task has ended all the same.
        }
      })
      .finally(() => this.#pending.delete(done));
    this.#pending.add(done);
  }

  /** How many tasks are still running. */
  get running(): number {
    return this.#pending.size;
  }

  /** Resolves when every task started so far, and any they start meanwhile, has ended. */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending);
  }

  /**
   * For the service's close: waits for the tasks; past the grace their sends are cut off (`stop`
   * aborts) and the close waits for them to end. Answers whether it had to cut them off.
   */
  async close(): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'grace over'>((resolve) => {
      timer = setTimeout(() => resolve('grace over'), this.graceMs);
    });
    const cut = (await Promise.race([this.settled(), graceOver])) === 'grace over';
    clearTimeout(timer);
    if (cut) {
      this.#stopping.abort();
      await this.settled();
    }
    return cut;
  }
}
