import { hash } from 'node:crypto';

/**
 * A large request body kept as fixed-size segments instead of one buffer, so that it is never
 * copied whole (reading a body into one buffer holds it twice while the pieces are joined) and the
 * part already read can be let go (`release`): a bulk upload's 80 MB of articles then shrink as
 * they are written instead of staying to the end. Positions are byte offsets in the whole body.
 */

/**
 * Bytes per segment, as a power of two: 2^25 (32 MiB), just above the largest block the C
 * library's allocator (glibc) ever serves from its heap, so that every whole segment is mapped on
 * its own and its memory goes back to the system when the segment is let go (a smaller block, once
 * freed, stays with the process for later allocations: measured, the 100,000-article upload then
 * peaked 40 to 60 MiB higher with 256 KiB segments; docs/performance.md).
 */
export const SEGMENT_BITS = 25;

/** White space between JSON tokens and between XML markup alike: space, line feed, carriage return, tab. */
export function isSpaceByte(b: number | undefined): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

export class SegmentedBytes {
  private readonly segments: (Buffer | null)[] = [];
  private readonly shift: number;
  private readonly size: number;
  private readonly mask: number;
  /** Bytes written into the last segment. */
  private fill: number;
  private total = 0;
  private sealed = false;
  /** Line feeds of each segment let go with `keepLineCount`: lines still count from the body's start. */
  private readonly releasedNewlines: number[] = [];
  /** Where `hashWith` puts the bytes it hashes. */
  private scratch = Buffer.alloc(0);

  /** `segmentBits` other than the default only for tests of the segments' edges. */
  constructor(segmentBits = SEGMENT_BITS) {
    this.shift = segmentBits;
    this.size = 2 ** segmentBits;
    this.mask = this.size - 1;
    this.fill = this.size;
  }

  /** A copy of `buf` (for callers that have the whole body already). */
  static of(buf: Buffer, segmentBits = SEGMENT_BITS): SegmentedBytes {
    const bytes = new SegmentedBytes(segmentBits);
    bytes.append(buf);
    return bytes.seal();
  }

  get length(): number {
    return this.total;
  }

  /** Copies a received chunk in; the chunk itself is not kept. */
  append(chunk: Buffer): void {
    if (this.sealed) throw new Error('the body is complete');
    let from = 0;
    while (from < chunk.length) {
      if (this.fill === this.size) {
        // The first segment starts small (most bodies are); the next ones are whole.
        const first = this.segments.length === 0;
        this.segments.push(
          Buffer.allocUnsafeSlow(
            first ? Math.min(this.size, Math.max(chunk.length - from, 4096)) : this.size,
          ),
        );
        this.fill = 0;
      }
      let segment = this.segments[this.segments.length - 1] as Buffer;
      if (segment.length === this.fill) {
        // A small first allocation grows to a full segment once more arrives.
        const grown = Buffer.allocUnsafeSlow(Math.min(this.size, segment.length * 4));
        segment.copy(grown, 0, 0, this.fill);
        this.segments[this.segments.length - 1] = grown;
        segment = grown;
      }
      const n = Math.min(segment.length - this.fill, chunk.length - from);
      chunk.copy(segment, this.fill, from, from + n);
      this.fill += n;
      from += n;
      this.total += n;
    }
  }

  /** Ends the body: the last segment is cut to what it holds. */
  seal(): this {
    const last = this.segments.length - 1;
    const segment = this.segments[last];
    if (segment) this.segments[last] = segment.subarray(0, this.fill);
    this.sealed = true;
    return this;
  }

  /** The byte at `p`, or -1 past the end. */
  at(p: number): number {
    return this.segments[p >>> this.shift]?.[p & this.mask] ?? -1;
  }

  /** The first position at or after `from` that holds `byte`, or -1. */
  indexOf(byte: number, from: number): number {
    for (let s = from >>> this.shift; s < this.segments.length; s++) {
      const segment = this.segments[s];
      if (!segment) throw new RangeError(`bytes before ${(s + 1) * this.size} were released`);
      const at = segment.indexOf(byte, s === from >>> this.shift ? from & this.mask : 0);
      if (at >= 0) return s * this.size + at;
    }
    return -1;
  }

  /** The first position at or after `from` where the ASCII text `pattern` starts, or -1. */
  indexOfText(pattern: string, from: number): number {
    const n = pattern.length;
    for (let s = from >>> this.shift; s < this.segments.length; s++) {
      const segment = this.segment(s);
      const start = s === from >>> this.shift ? from & this.mask : 0;
      const inside = segment.indexOf(pattern, start, 'latin1');
      if (inside >= 0) return s * this.size + inside;
      // A match that begins near the end of this segment and ends in the next one.
      for (let k = Math.max(start, segment.length - n + 1); k < segment.length; k++) {
        if (this.startsWith(s * this.size + k, pattern)) return s * this.size + k;
      }
    }
    return -1;
  }

  /** Whether the ASCII text `pattern` stands at `p`. */
  startsWith(p: number, pattern: string): boolean {
    for (let k = 0; k < pattern.length; k++) if (this.at(p + k) !== pattern.charCodeAt(k)) return false;
    return true;
  }

  /** Whether the bytes from `a` to `aEnd` equal those from `b` to `bEnd` (names of two tags). */
  equalRanges(a: number, aEnd: number, b: number, bEnd: number): boolean {
    if (aEnd - a !== bEnd - b) return false;
    for (let k = 0; k < aEnd - a; k++) if (this.at(a + k) !== this.at(b + k)) return false;
    return true;
  }

  /** The line (from 1) of position `p`, from the body's start (after a `release` that kept line counts). */
  lineAt(p: number): number {
    const last = Math.min(p >>> this.shift, this.segments.length);
    let line = 1;
    for (let s = 0; s < last; s++) line += this.releasedNewlines[s] ?? newlines(this.segment(s), this.size);
    const segment = this.segments[last];
    if (segment) line += newlines(segment, p & this.mask);
    return line;
  }

  /** Whether every byte is JSON or XML white space (an empty body counts as none). */
  isBlank(): boolean {
    return this.segments.every((segment) => segment?.every(isSpaceByte) ?? true);
  }

  /** The bytes from `start` to `end` as UTF-8 text (a character split between segments stays whole). */
  text(start: number, end: number): string {
    const first = start >>> this.shift;
    const last = (end - 1) >>> this.shift;
    if (end <= start) return '';
    if (first === last)
      return this.segment(first).toString('utf8', start & this.mask, ((end - 1) & this.mask) + 1);
    const parts: Buffer[] = [];
    for (let s = first; s <= last; s++) {
      const from = s === first ? start & this.mask : 0;
      const to = s === last ? ((end - 1) & this.mask) + 1 : this.size;
      parts.push(this.segment(s).subarray(from, to));
    }
    return Buffer.concat(parts, end - start).toString('utf8');
  }

  /**
   * The sha256 (base64url) of `prefix` followed by the bytes from `start` to `end`, hashed in one
   * call from one reused buffer: a Hash object per item cost more than the hashing itself
   * (docs/performance.md, "Sortiment bulk upload").
   */
  hashWith(prefix: Buffer, start: number, end: number): string {
    const need = prefix.length + end - start;
    if (this.scratch.length < need)
      this.scratch = Buffer.allocUnsafeSlow(Math.max(need, 2 * this.scratch.length));
    const into = this.scratch;
    prefix.copy(into, 0);
    for (let p = start, at = prefix.length; p < end;) {
      const s = p >>> this.shift;
      const to = Math.min(end, (s + 1) * this.size);
      at += this.segment(s).copy(into, at, p & this.mask, ((to - 1) & this.mask) + 1);
      p = to;
    }
    return hash('sha256', into.subarray(0, need), 'base64url');
  }

  /**
   * Lets go of the segments that lie wholly before `position`; they cannot be read again. Their
   * memory is given back now: a segment that outlived a few collections would otherwise stay until
   * the next full collection, which a long upload may not see before its end. Each segment owns
   * its memory (allocUnsafeSlow), so handing it to a copy that nothing keeps frees it at the next
   * young-generation collection. With `keepLineCount`, the line feeds of each segment let go are
   * counted first, for `lineAt` (XML's errors name lines; JSON's reader never asks).
   */
  release(position: number, keepLineCount = false): void {
    for (let s = 0; s < position >>> this.shift && s < this.segments.length; s++) {
      const segment = this.segments[s];
      if (!segment) continue;
      if (keepLineCount) this.releasedNewlines[s] = newlines(segment, segment.length);
      this.segments[s] = null;
      const memory = segment.buffer;
      if (memory instanceof ArrayBuffer) structuredClone(memory, { transfer: [memory] });
    }
  }

  /** Bytes still held (for tests and diagnostics). */
  retained(): number {
    return this.segments.reduce((sum, segment) => sum + (segment?.length ?? 0), 0);
  }

  /**
   * The segment that holds position `p` (below `length`), for loops over its bytes; its first byte
   * is at position `segmentStart(p)`.
   */
  segmentAt(p: number): Buffer {
    return this.segment(p >>> this.shift);
  }

  segmentStart(p: number): number {
    return p - (p & this.mask);
  }

  private segment(s: number): Buffer {
    const segment = this.segments[s];
    if (!segment) throw new RangeError(`bytes before ${(s + 1) * this.size} were released`);
    return segment;
  }
}

/** Line feeds among the first `end` bytes of a segment. */
function newlines(segment: Buffer, end: number): number {
  let count = 0;
  for (let p = segment.indexOf(0x0a); p >= 0 && p < end; p = segment.indexOf(0x0a, p + 1)) count++;
  return count;
}

/**
 * Start and end of item `i` in a list of spans kept as [start, end, start, end, ...] (the item
 * lists of json-items.ts and xml-items.ts).
 */
export function spanOf(
  spans: readonly number[] | null | undefined,
  i: number,
  name: string,
): [number, number] {
  const start = spans?.[2 * i];
  const end = spans?.[2 * i + 1];
  if (start === undefined || end === undefined) throw new RangeError(`no item ${i} of ${name}`);
  return [start, end];
}
