/**
 * The stored bodies of one batch of a bulk upload, kept as UTF-8 bytes in one buffer that the
 * upload reuses for every batch, outside the JavaScript heap. A body held as a string from its
 * reading until its batch is written lives through a young-generation collection or two and is
 * then copied into the old generation, where it stays until V8's next full collection. Written
 * here, the string dies young and the batch holds only its place: measured over the four
 * 100,000-article uploads of the sortiment benchmark, what young-generation collections moved into
 * the old generation fell from about 630 to 200 MiB (docs/performance.md).
 */
export interface TextPlace {
  readonly at: number;
  readonly bytes: number;
}

export class BatchTexts {
  private buf: Buffer;
  private used = 0;

  constructor(initialBytes = 1 << 20) {
    this.buf = Buffer.allocUnsafeSlow(initialBytes);
  }

  /** Copies `text` in; answers where it lies. */
  add(text: string): TextPlace {
    // Room for the most bytes the text can take (a UTF-16 unit is at most three bytes of UTF-8),
    // rather than a pass over it to count them exactly.
    const most = 3 * text.length;
    if (this.used + most > this.buf.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.used + most));
      this.buf.copy(grown, 0, 0, this.used);
      this.buf = grown;
    }
    const at = this.used;
    const bytes = this.buf.write(text, at, 'utf8');
    this.used += bytes;
    return { at, bytes };
  }

  /** The text at `place`, as it was added (until the next `clear`). */
  text(place: TextPlace): string {
    return this.buf.toString('utf8', place.at, place.at + place.bytes);
  }

  /** The bytes at `place` (a view into the buffer, valid until the next `clear`). */
  bytes(place: TextPlace): Buffer {
    return this.buf.subarray(place.at, place.at + place.bytes);
  }

  /** Forgets every text: the next batch writes over them. */
  clear(): void {
    this.used = 0;
  }
}
