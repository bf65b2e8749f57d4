/** A stored open article found by the raw hash of an item (bulk-write.store.ts, openByRawHash). */
export interface StoredByRaw {
  readonly plu: string;
  readonly group_id: string | null;
}

interface Chunk {
  readonly hashes: string[];
  readonly known: Promise<Map<string, StoredByRaw>>;
}

/**
 * The raw hashes of an upload's items, `rows` at a time, and the stored articles they name
 * (docs/decisions.md, "Sortiment"). The lookup of the next chunk is sent as soon as the current
 * one is taken, so the database looks it up while this process hashes and reads the current one.
 * `lookup` null: nothing is stored yet (a first upload), the hashes alone are made.
 */
export class RawLookups {
  private first = 0;
  private hashes: string[] = [];
  private known = new Map<string, StoredByRaw>();
  private ahead: Chunk | null = null;

  constructor(
    private readonly count: number,
    private readonly hash: (i: number) => string,
    private readonly lookup: ((hashes: string[]) => Promise<Map<string, StoredByRaw>>) | null,
    private readonly rows: number,
  ) {}

  private start(first: number): Chunk {
    const hashes: string[] = [];
    for (let k = first; k < Math.min(this.count, first + this.rows); k++) hashes.push(this.hash(k));
    const known = this.lookup ? this.lookup(hashes) : Promise.resolve(new Map<string, StoredByRaw>());
    // Awaited when its chunk is taken; an upload that fails before must not leave it unhandled.
    known.catch(() => undefined);
    return { hashes, known };
  }

  /** Called for each item in order: at the first of a chunk, takes that chunk and sends the next. */
  async load(i: number): Promise<void> {
    if (i % this.rows !== 0) return;
    const current = this.ahead ?? this.start(i);
    const next = i + this.rows;
    this.ahead = next < this.count ? this.start(next) : null;
    this.first = i;
    this.hashes = current.hashes;
    this.known = await current.known;
  }

  /** The raw hash of item `i` (of the chunk loaded last). */
  hashOf(i: number): string | null {
    return this.hashes[i - this.first] ?? null;
  }

  /** The stored article whose raw hash is item `i`'s, if any. */
  storedOf(i: number): StoredByRaw | undefined {
    const h = this.hashOf(i);
    return h === null ? undefined : this.known.get(h);
  }
}
