import type { PipelinedConnection } from './pipelined-connection.js';

/**
 * A transaction that writes the write-ahead log and commits synchronously: its commit waits until
 * the log is on disk up to its own commit record, and so up to every commit before it.
 */
const FLUSH = "SELECT pg_logical_emit_message(true, 'punchcard.flush', '')";
const FLUSH_NAME = 'wal_flush';

/**
 * Flushes the write-ahead log for a writer whose transactions commit without waiting for the disk
 * (docs/decisions.md, "Orders in one statement": the flush after the batch). `flush()` resolves
 * once a flushing transaction that started after the call has committed, so every transaction that
 * committed before the call is on disk. Callers that arrive while one flush is running share the
 * next one: one flush at a time, each covering every commit before it.
 */
export class WalFlush {
  readonly #connection: PipelinedConnection;
  #running: Promise<void> | null = null;
  #next: Promise<void> | null = null;

  constructor(connection: PipelinedConnection) {
    this.#connection = connection;
  }

  flush(): Promise<void> {
    if (this.#running === null) return this.#start();
    // The flush running may have started before the caller's commit: the one after it.
    this.#next ??= this.#running.then(
      () => this.#afterRunning(),
      () => this.#afterRunning(),
    );
    return this.#next;
  }

  #afterRunning(): Promise<void> {
    this.#next = null;
    return this.#start();
  }

  #start(): Promise<void> {
    const running = this.#connection.query(FLUSH_NAME, FLUSH, []).then(
      () => {
        if (this.#running === running) this.#running = null;
      },
      (err: unknown) => {
        if (this.#running === running) this.#running = null;
        throw err;
      },
    );
    this.#running = running;
    return running;
  }
}
