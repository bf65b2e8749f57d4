import type { Line } from './basket-state.js';
import type { EnginePosition, Selector } from './types.js';

/** What candidate-keys needs of a partition's entries and of a partition (campaign-index.ts builds them). */
interface KeyedEntry {
  readonly rank: number;
  /** Combinations only: the key they are found by (the other parts' lines are found when it is). */
  readonly trigger: Selector | undefined;
}
interface KeyedPartition {
  readonly no: number;
  readonly byPlu: ReadonlyMap<string, readonly KeyedEntry[]>;
  readonly byGroup: ReadonlyMap<string, readonly KeyedEntry[]>;
  readonly everyArticle: readonly KeyedEntry[];
}

/**
 * The product-level campaigns of every partition under one key each: a PLU, a group, or "every
 * article". A basket position looks up its PLU and each of its groups once, whatever the number of
 * partitions, and reads from one integer array the lists of the partitions its basket sees.
 *
 * `table` holds, at a key's offset: the number of partitions that have campaigns under the key,
 * then for each one, by partition number ascending (`everywhere`, 0, first), its number and the
 * offset of its list; a list is its length followed by its ranks (processing order, ascending).
 */
export interface CandidateKeys {
  /** Campaigns in the index (ranks are below it). */
  readonly size: number;
  readonly byPlu: ReadonlyMap<string, number>;
  /** The string keys of `byPlu` again, in a table of their own (see pluKey); null below PLU_TABLE_FROM keys. */
  readonly pluTable: PluTable | null;
  readonly byGroup: ReadonlyMap<string, number>;
  /** Offset of the "every article" key; -1 when no campaign matches every article. */
  readonly everyArticle: number;
  readonly table: Int32Array;
  readonly outletPartition: ReadonlyMap<number, number>;
  readonly couponPartition: ReadonlyMap<string, number>;
}

export function buildCandidateKeys(
  size: number,
  partitions: readonly KeyedPartition[],
  byOutlet: ReadonlyMap<number, KeyedPartition>,
  byCoupon: ReadonlyMap<string, KeyedPartition>,
): CandidateKeys {
  type Lists = { no: number; ranks: number[] }[];
  const plu = new Map<string, Lists>();
  const group = new Map<string, Lists>();
  const every: Lists = [];
  const add = (into: Map<string, Lists>, key: string, no: number, list: readonly KeyedEntry[]) => {
    const ranks = list.filter((e) => isTrigger(e.trigger, into === plu, key)).map((e) => e.rank);
    if (ranks.length === 0) return;
    let lists = into.get(key);
    if (lists === undefined) into.set(key, (lists = []));
    lists.push({ no, ranks });
  };
  for (const p of partitions) {
    for (const [key, list] of p.byPlu) add(plu, key, p.no, list);
    for (const [key, list] of p.byGroup) add(group, key, p.no, list);
    if (p.everyArticle.length > 0) every.push({ no: p.no, ranks: p.everyArticle.map((e) => e.rank) });
  }
  const words: number[] = [];
  const put = (lists: Lists): number => {
    lists.sort((a, b) => a.no - b.no);
    const at = words.length;
    words.push(lists.length);
    const slots = words.length;
    for (const _ of lists) words.push(0, 0);
    lists.forEach((l, i) => {
      words[slots + 2 * i] = l.no;
      words[slots + 2 * i + 1] = words.length;
      words.push(l.ranks.length, ...l.ranks);
    });
    return at;
  };
  const offsets = (m: Map<string, Lists>) =>
    new Map([...m].map(([key, lists]) => [key, put(lists)] as const));
  const byPlu = offsets(plu);
  const byGroup = offsets(group);
  const everyArticle = every.length > 0 ? put(every) : -1;
  return {
    size,
    byPlu,
    pluTable: byPlu.size >= PLU_TABLE_FROM ? buildPluTable(byPlu) : null,
    byGroup,
    everyArticle,
    table: Int32Array.from(words),
    outletPartition: new Map([...byOutlet].map(([id, p]) => [id, p.no] as const)),
    couponPartition: new Map([...byCoupon].map(([code, p]) => [code, p.no] as const)),
  };
}

/**
 * The PLU keys by hash, open addressing: per slot PLU_SLOT words, the key's offset in `table` plus
 * one (0: an empty slot), its length, and its first PLU_INLINE characters two to a word, so that a
 * lookup reads one slot of one array (a Map of the 3,700 PLUs that 10,000 campaigns name reads a
 * bucket, an entry and the key, each a cache miss of its own); a longer key is compared with its
 * string in `long`.
 */
export interface PluTable {
  readonly slots: Int32Array;
  /** Slots - 1 (a power of two, at least twice the keys). */
  readonly mask: number;
  readonly long: readonly (string | undefined)[];
}

/**
 * The index's own PLU table pays from this many PLUs on: it hashes a PLU's characters on every
 * lookup, where a Map of strings uses the hash each string keeps, and a Map of a few hundred PLUs
 * stays in the cache; with the table at 100 campaigns the engine ran about a tenth slower, from
 * 1,024 PLUs on as fast as before, at 10,000 campaigns faster (docs/performance.md, "Reward engine
 * alone").
 */
export const PLU_TABLE_FROM = 1024;

const PLU_SLOT = 8;
const PLU_INLINE = 2 * (PLU_SLOT - 2);

function pluHash(plu: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < plu.length; i++) h = Math.imul(h ^ plu.charCodeAt(i), 0x01000193);
  return h ^ (h >>> 15);
}

/** Characters 2w and 2w + 1 of the key as one word. */
function charPair(plu: string, w: number): number {
  const c = plu.charCodeAt(2 * w);
  return 2 * w + 1 < plu.length ? c | (plu.charCodeAt(2 * w + 1) << 16) : c;
}

export function buildPluTable(byPlu: ReadonlyMap<string, number>): PluTable {
  let slotCount = 2;
  while (slotCount < 2 * byPlu.size) slotCount *= 2;
  const slots = new Int32Array(slotCount * PLU_SLOT);
  const long: (string | undefined)[] = [];
  const mask = slotCount - 1;
  for (const [plu, offset] of byPlu) {
    // a PLU that is not a string (not in the types, but in a campaign's JSON) stays in byPlu only
    if (typeof plu !== 'string') continue;
    let i = pluHash(plu) & mask;
    while (slots[i * PLU_SLOT] !== 0) i = (i + 1) & mask;
    const at = i * PLU_SLOT;
    slots[at] = offset + 1;
    slots[at + 1] = plu.length;
    if (plu.length > PLU_INLINE) long[i] = plu;
    else for (let w = 0; 2 * w < plu.length; w++) slots[at + 2 + w] = charPair(plu, w);
  }
  return { slots, mask, long };
}

/** The offset of a PLU's key in `keys.table` (as byPlu.get), undefined when no campaign names it. */
export function pluKey(keys: CandidateKeys, plu: string): number | undefined {
  const table = keys.pluTable;
  if (table === null || typeof plu !== 'string') return keys.byPlu.get(plu);
  const { slots, mask } = table;
  const length = plu.length;
  for (let i = pluHash(plu) & mask; ; i = (i + 1) & mask) {
    const at = i * PLU_SLOT;
    const offset = slots[at] as number;
    if (offset === 0) return undefined;
    if (slots[at + 1] !== length) continue;
    if (length > PLU_INLINE) {
      if (table.long[i] === plu) return offset - 1;
      continue;
    }
    let same = true;
    for (let w = 0; 2 * w < length && same; w++) same = slots[at + 2 + w] === charPair(plu, w);
    if (same) return offset - 1;
  }
}

function isTrigger(trigger: Selector | undefined, isPlu: boolean, key: string): boolean {
  if (trigger === undefined) return true;
  return isPlu ? 'plu' in trigger && trigger.plu === key : 'group' in trigger && trigger.group === key;
}

/**
 * Scratch space of the search (evaluation is synchronous and calls out to nothing, so a buffer is
 * never used by two evaluations at a time; results do not depend on it).
 */
let small = new Uint32Array(1024);
let large = new Float64Array(0);
/** Pairs below this sort as 32-bit integers, several times faster than as doubles. */
export const SMALL_LIMIT = 2 ** 32;
let seen = new Int32Array(4);

/**
 * Every (campaign, line) pair of the basket's eligible lines and the campaigns the basket can see
 * (the partition everywhere, its outlet's, its coupon codes'), as `rank * lines.length + line`,
 * sorted: by rank, then by line, with repeats (a campaign naming a line by PLU and by group) next
 * to each other. Answers the buffer and the number of pairs in it. Beyond `smallLimit` (2^32, more
 * campaigns times positions than real baskets bring) the pairs are kept as doubles.
 */
export function findCandidatePairs(
  keys: CandidateKeys,
  lines: readonly Line[],
  outletId: number | null,
  couponCodes: readonly string[],
  smallLimit = SMALL_LIMIT,
): { pairs: Uint32Array | Float64Array; count: number } {
  const visible = visiblePartitions(keys, outletId, couponCodes);
  const t = keys.table;
  const span = lines.length;
  let pairs: Uint32Array | Float64Array = small;
  if (keys.size * span > smallLimit) {
    if (large.length < small.length) large = new Float64Array(small.length);
    pairs = large;
  }
  let count = 0;
  for (let lineNo = 0; lineNo < span; lineNo++) {
    const line = lines[lineNo] as Line;
    if (!line.eligible) continue;
    const r = visibleLists(keys, line.position, visible);
    for (let j = 1; j < (r[0] as number); j += 2) {
      const list = r[j] as number;
      const end = r[j + 1] as number;
      if (count + end > pairs.length + list) pairs = grow(pairs, count + end - list);
      for (let i = list; i < end; i++) pairs[count++] = (t[i] as number) * span + lineNo;
    }
  }
  if (count > 1) pairs.subarray(0, count).sort();
  return { pairs, count };
}

let ranges = new Int32Array(33);

/**
 * Where in `keys.table` the campaigns under a position's keys (its PLU, its groups, "every
 * article") are, in the partitions the basket sees (`visible`, from visiblePartitions): answers a
 * buffer holding at 0 the number of the words after it, then each list's start and end (exclusive)
 * offsets. The buffer is reused by the next call.
 */
export function visibleLists(keys: CandidateKeys, p: EnginePosition, visible: number): Int32Array {
  const t = keys.table;
  const groups = keys.byGroup.size > 0 ? p.groupIds.length : 0;
  let at = 1;
  for (let k = -1; k <= groups; k++) {
    const key = keyAt(keys, p, k, groups);
    if (key === undefined) continue;
    const n = t[key] as number;
    if (at + 2 * n > ranges.length) {
      const more = new Int32Array(2 * (at + 2 * n));
      more.set(ranges);
      ranges = more;
    }
    for (let j = 0; j < n; j++) {
      const no = t[key + 1 + 2 * j] as number;
      if (no !== 0 && !sees(no, visible)) continue;
      const list = t[key + 2 + 2 * j] as number;
      ranges[at++] = list + 1;
      ranges[at++] = list + 1 + (t[list] as number);
    }
  }
  ranges[0] = at;
  return ranges;
}

/**
 * The line's keys, k from -1 to `groups`: its PLU (-1), each of its groups, "every article"
 * (`groups`, the number of its groups the search looks at: 0 when no campaign names a group).
 * Answers the key's offset in `keys.table`, undefined when no campaign is under it.
 */
function keyAt(keys: CandidateKeys, p: EnginePosition, k: number, groups: number): number | undefined {
  if (k === -1) return p.productId === null ? undefined : keys.byPlu.get(p.productId);
  if (k < groups) return keys.byGroup.get(p.groupIds[k] as string);
  return keys.everyArticle >= 0 ? keys.everyArticle : undefined;
}

/**
 * Notes the partitions a basket sees besides `everywhere` (0), its outlet's and its codes', for
 * `sees`; answers their number.
 */
export function visiblePartitions(
  keys: CandidateKeys,
  outletId: number | null,
  couponCodes: readonly string[],
): number {
  let visible = 0;
  if (outletId !== null) visible = see(keys.outletPartition.get(outletId), visible);
  if (keys.couponPartition.size > 0) {
    for (const code of couponCodes) visible = see(keys.couponPartition.get(code), visible);
  }
  return visible;
}

function see(no: number | undefined, visible: number): number {
  if (no === undefined || sees(no, visible)) return visible;
  if (visible === seen.length) {
    const more = new Int32Array(2 * visible);
    more.set(seen);
    seen = more;
  }
  seen[visible] = no;
  return visible + 1;
}

/** The partitions visiblePartitions noted, its answer's number of them first (read before it runs again). */
export function visibleNos(): Int32Array {
  return seen;
}

/** Whether partition `no` is among the first `visible` that visiblePartitions noted. */
export function sees(no: number, visible: number): boolean {
  for (let i = 0; i < visible; i++) if (seen[i] === no) return true;
  return false;
}

function grow(pairs: Uint32Array | Float64Array, need: number): Uint32Array | Float64Array {
  const length = Math.max(need, 2 * pairs.length);
  if (pairs instanceof Uint32Array) {
    small = new Uint32Array(length);
    small.set(pairs);
    return small;
  }
  large = new Float64Array(length);
  large.set(pairs);
  return large;
}
