import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';
import { RAW_PAGE_ROWS, type StoredByRaw, openByRawHash, openRows } from './bulk-write.store.js';

/** Looks up the stored open articles of some raw hashes (those not stored are absent). */
export type RawLookup = (hashes: string[]) => Promise<ReadonlyMap<string, StoredByRaw>>;

/**
 * From this many items on, an upload reads the raw hashes of every open row of the sortiment once
 * (`openRows`, a page of rows per statement) instead of looking up its own items' hashes
 * 1,000 per statement (`openByRawHash`, an index lookup each). A row read in pages costs less than
 * a lookup, so reading all pays for an upload that is a good part of its sortiment; an upload
 * smaller than a page reads no more stored rows than it sends items, whatever the size of the
 * sortiment (docs/decisions.md, "Sortiment").
 */
export const READ_ALL_RAW_FROM = RAW_PAGE_ROWS;

/**
 * How an upload of `items` items finds the stored articles by raw hash (docs/decisions.md,
 * "Sortiment"): fewer than `readAllFrom` items, by lookups of the hashes asked; more, from all the
 * open rows, read here before anything is written, whose PLUs are then answered too (a whole
 * sortiment deletes those it does not list). Reads only: no turn's transaction (where they would
 * wait for the batch being written).
 */
export async function storedRawLookup(
  db: Kysely<DB>,
  { sortimentId, currentGen }: { sortimentId: number; currentGen: number },
  items: number,
  readAllFrom = READ_ALL_RAW_FROM,
): Promise<{ lookup: RawLookup; openPlus: readonly string[] | null }> {
  if (items < readAllFrom) {
    return { lookup: (hashes) => openByRawHash(db, sortimentId, currentGen, hashes), openPlus: null };
  }
  const all = await openRows(db, sortimentId, currentGen);
  return { lookup: () => Promise.resolve(all.byRaw), openPlus: all.plus };
}

interface Chunk {
  readonly hashes: string[];
  readonly known: Promise<ReadonlyMap<string, StoredByRaw>>;
}

/**
 * The raw hashes of an upload's items, `rows` at a time, and the stored articles they name. The
 * lookup of the next chunk is sent as soon as the current one is taken, so the database looks it up
 * while this process hashes and reads the current one. `lookup` null: nothing is stored (a first
 * upload), the hashes alone are made.
 */
export class RawLookups {
  private first = 0;
  private hashes: string[] = [];
  private known: ReadonlyMap<string, StoredByRaw> = new Map();
  private ahead: Chunk | null = null;

  constructor(
    private readonly count: number,
    private readonly hash: (i: number) => string,
    private readonly lookup: RawLookup | null,
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
