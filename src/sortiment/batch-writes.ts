import { BatchTexts, type TextPlace } from './batch-texts.js';

/**
 * The batches of a bulk upload, each written one behind the reading (docs/decisions.md,
 * "Sortiment"): while one batch's transaction runs, the next is read into the other of two text
 * buffers, so that the database writes while this process parses and checks. At most one batch
 * is being written at a time, and they are written in order.
 */
export class BatchWrites<A> {
  private batch: A[] = [];
  private texts = new BatchTexts();
  private spare = new BatchTexts();
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly size: number,
    private readonly write: (rows: A[], texts: BatchTexts) => Promise<void>,
  ) {}

  /** Adds an article whose stored body is `text`; hands the batch over once it is full. */
  async add(text: string, article: (place: TextPlace) => A): Promise<void> {
    if (this.put(text, article)) await this.flush();
  }

  /**
   * `add` without a promise for every article: true when the batch is full and the caller is to
   * `flush` it (a bulk upload's reading loop awaits only then).
   */
  put(text: string, article: (place: TextPlace) => A): boolean {
    this.batch.push(article(this.texts.add(text)));
    return this.batch.length >= this.size;
  }

  /**
   * Hands the batch over to be written once the one before it is written (a failure of that one
   * is thrown here), and returns without waiting for it.
   */
  async flush(): Promise<void> {
    await this.writing;
    if (this.batch.length === 0) return;
    const rows = this.batch;
    const texts = this.texts;
    this.batch = [];
    this.texts = this.spare;
    this.spare = texts;
    this.writing = this.write(rows, texts).finally(() => texts.clear());
    // Awaited by the next flush, `finish` or `settle`; its failure must not go unhandled meanwhile.
    this.writing.catch(() => undefined);
  }

  /** Writes what is left and waits until every batch is written. */
  async finish(): Promise<void> {
    await this.flush();
    await this.writing;
  }

  /** Waits for the write under way, whatever its outcome: nothing writes once this answers. */
  async settle(): Promise<void> {
    await this.writing.catch(() => undefined);
  }
}
