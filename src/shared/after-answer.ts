/**
 * Work a request starts and its answer does not wait for (the consumer portal's sign-in links:
 * docs/decisions.md, "Consumer portal"), kept track of so that the service's close waits for it
 * before the database and the mailer close: nothing begun for an answered request is cut off
 * half-way by a restart.
 */
export class AfterAnswer {
  readonly #pending = new Set<Promise<void>>();

  /** Starts `task` on the next turn of the event loop; a failure goes to `onError`, never further. */
  run(task: () => Promise<void>, onError: (err: unknown) => void): void {
    const done: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
      .then(task)
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
}
