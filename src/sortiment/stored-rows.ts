/**
 * The open rows of a sortiment as a bulk upload finds its stored articles (raw hash, PLU and group;
 * docs/decisions.md, "Sortiment"), and the process's cache of them between uploads.
 */

/** A stored open article found by the raw hash of an item. */
export interface StoredByRaw {
  readonly plu: string;
  readonly group_id: string | null;
}

/** Looks stored articles up by raw hash (a Map of them, or `StoredOpenRows`). */
export interface ByRawHash {
  get(rawHash: string): StoredByRaw | undefined;
}

/**
 * The open rows of one sortiment: PLU, raw hash (null for rows written otherwise than by a bulk
 * upload) and group, by PLU and by raw hash. A row is a slot of three arrays; the maps hold slot
 * numbers, not an object per row, and the groups' texts are shared. The open rows of a sortiment
 * have distinct PLUs, and so distinct bytes: a raw hash names at most one of them.
 */
export class StoredOpenRows implements ByRawHash {
  private plus: (string | null)[] = [];
  private raws: (string | null)[] = [];
  private groups: (string | null)[] = [];
  private readonly bySlot = { plu: new Map<string, number>(), raw: new Map<string, number>() };
  private readonly groupTexts = new Map<string, string>();

  /** The number of open rows. */
  get size(): number {
    return this.bySlot.plu.size;
  }

  /** Sets the open row of `plu`, in place of the one it had. */
  set(plu: string, raw: string | null, group: string | null): void {
    const { bySlot } = this;
    let slot = bySlot.plu.get(plu);
    if (slot === undefined) {
      slot = this.plus.length;
      this.plus.push(plu);
      this.raws.push(null);
      this.groups.push(null);
      bySlot.plu.set(plu, slot);
    } else this.forgetRaw(slot);
    this.raws[slot] = raw;
    if (raw !== null) bySlot.raw.set(raw, slot);
    let shared = group;
    if (group !== null) {
      shared = this.groupTexts.get(group) ?? group;
      if (shared === group) this.groupTexts.set(group, group);
    }
    this.groups[slot] = shared;
  }

  /** Removes the open row of `plu`, if any. */
  delete(plu: string): void {
    const slot = this.bySlot.plu.get(plu);
    if (slot === undefined) return;
    this.forgetRaw(slot);
    this.bySlot.plu.delete(plu);
    this.plus[slot] = null;
    this.raws[slot] = null;
    this.groups[slot] = null;
    // Slots of removed rows are reused only by packing, once they are half of all.
    if (this.plus.length > 2 * this.size + 1_024) this.pack();
  }

  get(rawHash: string): StoredByRaw | undefined {
    const slot = this.bySlot.raw.get(rawHash);
    const plu = slot === undefined ? null : this.plus[slot];
    if (slot === undefined || plu === null || plu === undefined) return undefined;
    return { plu, group_id: this.groups[slot] ?? null };
  }

  /** Every open PLU, those without a raw hash included. */
  openPlus(): string[] {
    return [...this.bySlot.plu.keys()];
  }

  private forgetRaw(slot: number): void {
    const old = this.raws[slot];
    if (old !== null && old !== undefined && this.bySlot.raw.get(old) === slot) this.bySlot.raw.delete(old);
  }

  private pack(): void {
    const { plus, raws, groups } = this;
    this.plus = [];
    this.raws = [];
    this.groups = [];
    this.bySlot.plu.clear();
    this.bySlot.raw.clear();
    plus.forEach((plu, slot) => {
      if (plu !== null) this.set(plu, raws[slot] ?? null, groups[slot] ?? null);
    });
  }
}

/**
 * Open rows kept by a process, all sortiments together: some 40 MB (about 200 bytes a row), two
 * sortiments of the benchmark's 100,000 articles or one of the largest upload allowed.
 */
export const STORED_ROWS_KEPT = 200_000;

/**
 * The open rows of the sortiments this process uploaded last, each named by the sortiment's
 * generation and version it describes, so that the next upload of the same sortiment need not
 * read its stored rows (docs/decisions.md, "Sortiment"). An upload uses an entry only when the
 * generation and version it read with the sortiment's turn are the entry's; every change of the
 * open rows raises one of them (a bulk upload the generation, a single write the version),
 * whichever instance of the service made it. At most `maxRows` rows in all; the sortiment used
 * longest ago goes first.
 */
export class StoredRowsCache {
  private readonly entries = new Map<
    number,
    { gen: number; version: number; rows: StoredOpenRows; size: number }
  >();
  private held = 0;

  constructor(private readonly maxRows: number) {}

  /** Rows held, all sortiments together. */
  get rows(): number {
    return this.held;
  }

  /**
   * Takes the sortiment's entry out of the cache; answers its rows if they are those of
   * generation `gen` at version `version`, else null. The caller owns what it is given (an
   * upload changes it as it writes and puts it back once its generation is switched to).
   */
  take(sortimentId: number, gen: number, version: number): StoredOpenRows | null {
    const entry = this.entries.get(sortimentId);
    if (entry === undefined) return null;
    this.entries.delete(sortimentId);
    this.held -= entry.size;
    return entry.gen === gen && entry.version === version ? entry.rows : null;
  }

  /** Keeps `rows` as the sortiment's open rows of generation `gen` at version `version`. */
  put(sortimentId: number, gen: number, version: number, rows: StoredOpenRows): void {
    const before = this.entries.get(sortimentId);
    if (before !== undefined) {
      this.entries.delete(sortimentId);
      this.held -= before.size;
    }
    if (rows.size > this.maxRows) return;
    this.entries.set(sortimentId, { gen, version, rows, size: rows.size });
    this.held += rows.size;
    for (const [id, entry] of this.entries) {
      if (this.held <= this.maxRows) break;
      this.entries.delete(id);
      this.held -= entry.size;
    }
  }
}
