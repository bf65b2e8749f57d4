/**
 * How long a close waits for the work after answers before it cuts off their sends: as long as the
 * outbox's dispatcher gives its own (docs/decisions.md, "Several instances, a pooler, a replica, a
 * failover": a stopped service finishes what is in flight within its 30 s).
 */
export const AFTER_ANSWER_GRACE_MS = 5_000;

/**
 * Tasks running at once at most; a request that would start one more waits for a free place before
 * it is answered, so that clients cannot start work faster than it ends.
 */
export const AFTER_ANSWER_MAX_RUNNING = 64;

/**
 * Work a request starts and its answer does not wait for (the consumer portal's sign-in links:
 * docs/decisions.md, "Consumer portal"), kept track of so that the service's close waits for it
 * before the database and the mailer close: nothing begun for an answered request is cut off
 * half-way by a restart, but a send to the outside that takes longer than the grace.
 */
export class AfterAnswer {
  readonly #pending = new Set<Promise<void>>();
  readonly #stopping = new AbortController();

  constructor(
    private readonly graceMs = AFTER_ANSWER_GRACE_MS,
    private readonly maxRunning = AFTER_ANSWER_MAX_RUNNING,
  ) {}

  /**
   * Starts `task` on the next turn of the event loop, once fewer than `maxRunning` run (resolves
   * then, before the task ends); a failure goes to `onError`, never further. The task's sends to
   * the outside take `stop`, which aborts when a close has waited its grace.
   */
  async run(task: (stop: AbortSignal) => Promise<void>, onError: (err: unknown) => void): Promise<void> {
    // The tasks' promises never reject (their failures go to onError).
    while (this.#pending.size >= this.maxRunning) await Promise.race(this.#pending);
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
