import type { Line } from './basket-state.js';
import { type CandidateKeys, pluKey, visibleNos, visiblePartitions } from './candidate-keys.js';

/**
 * The basket's product-level candidates as marks, read in processing order without sorting: a bit
 * per rank found (`ranks`, and a bit per word of it in `summary`, so that a walk skips empty
 * stretches 1,024 ranks at a time) and, per rank, a bit per line naming it (`lines`, `words`
 * 32-bit words per rank). `free` has a bit for every line with units no product-level reward took
 * yet: a rank whose lines have no free bit left is dropped without reading anything else, and a
 * line that a campaign took stops counting for every later rank.
 *
 * Scratch space shared by every evaluation (evaluation is synchronous and calls out to nothing,
 * so it is never used by two at a time; results do not depend on it). A walk clears the bits it
 * reads; `markCandidates` first clears whatever an interrupted walk left.
 */
export interface CandidateMarks {
  summary: Int32Array;
  ranks: Int32Array;
  lines: Int32Array;
  free: Int32Array;
  /** Words per rank in `lines` and words of `free`: one per 32 lines of the basket. */
  words: number;
}

export const marks: CandidateMarks = {
  summary: new Int32Array(1),
  ranks: new Int32Array(32),
  lines: new Int32Array(1024),
  free: new Int32Array(1),
  words: 1,
};

/** Whether a line still has units a product-level reward can take. */
export function hasFreeUnits(line: Line): boolean {
  return line.freePieces > 0 || line.weighedFree;
}

/**
 * Marks every (campaign, line) pair of the basket's eligible lines with free units and the
 * partitions the basket can see (everywhere, its outlet's, its coupon codes'), and the free lines.
 */
export function markCandidates(
  keys: CandidateKeys,
  lines: readonly Line[],
  outletId: number | null,
  couponCodes: readonly string[],
): CandidateMarks {
  clearMarks();
  const span = lines.length;
  const words = Math.max(1, Math.ceil(span / 32));
  const rankWords = Math.ceil(keys.size / 32);
  if (marks.ranks.length < rankWords) marks.ranks = new Int32Array(rankWords);
  if (marks.summary.length < Math.ceil(rankWords / 32))
    marks.summary = new Int32Array(Math.ceil(rankWords / 32));
  if (marks.lines.length < keys.size * words) marks.lines = new Int32Array(keys.size * words);
  if (marks.free.length < words) marks.free = new Int32Array(words);
  marks.words = words;
  const { summary, ranks, free } = marks;
  const bits = marks.lines;
  for (let w = 0; w < words; w++) free[w] = 0;
  const seenCount = visiblePartitions(keys, outletId, couponCodes);
  seenNos = visibleNos();
  const t = keys.table;
  const { byGroup, everyArticle } = keys;
  const groupKeys = byGroup.size > 0;
  for (let lineNo = 0; lineNo < span; lineNo++) {
    const line = lines[lineNo] as Line;
    if (!line.eligible || !hasFreeUnits(line)) continue;
    const word = lineNo >>> 5;
    const bit = 1 << (lineNo & 31);
    free[word] = (free[word] as number) | bit;
    const p = line.position;
    if (p.productId !== null) {
      const key = pluKey(keys, p.productId);
      if (key !== undefined) markKey(t, key, seenCount, bits, ranks, summary, words, word, bit);
    }
    if (groupKeys) {
      const groupIds = p.groupIds;
      for (let g = 0; g < groupIds.length; g++) {
        const key = byGroup.get(groupIds[g] as string);
        if (key !== undefined) markKey(t, key, seenCount, bits, ranks, summary, words, word, bit);
      }
    }
    if (everyArticle >= 0) markKey(t, everyArticle, seenCount, bits, ranks, summary, words, word, bit);
  }
  return marks;
}

/**
 * Marks the ranks of a key's lists in the partitions the basket sees (`everywhere`, then the
 * `seenCount` numbers in `seenNos`) for the line at `word`/`bit`. A key's partitions are sorted by
 * number (candidate-keys.ts), so each one the basket sees is found by halving, without reading the
 * others (a group names campaigns of many outlets and codes).
 */
function markKey(
  t: Int32Array,
  key: number,
  seenCount: number,
  bits: Int32Array,
  ranks: Int32Array,
  summary: Int32Array,
  words: number,
  word: number,
  bit: number,
): void {
  const n = t[key] as number;
  let from = 0;
  if (n > 0 && t[key + 1] === 0) {
    markList(t, t[key + 2] as number, bits, ranks, summary, words, word, bit);
    from = 1;
  }
  for (let s = 0; s < seenCount; s++) {
    const no = seenNos[s] as number;
    let lo = from;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((t[key + 1 + 2 * mid] as number) < no) lo = mid + 1;
      else hi = mid;
    }
    if (lo < n && t[key + 1 + 2 * lo] === no) {
      markList(t, t[key + 2 + 2 * lo] as number, bits, ranks, summary, words, word, bit);
    }
  }
}

function markList(
  t: Int32Array,
  list: number,
  bits: Int32Array,
  ranks: Int32Array,
  summary: Int32Array,
  words: number,
  word: number,
  bit: number,
): void {
  const end = list + 1 + (t[list] as number);
  for (let i = list + 1; i < end; i++) {
    const rank = t[i] as number;
    const at = rank * words + word;
    bits[at] = (bits[at] as number) | bit;
    ranks[rank >>> 5] = (ranks[rank >>> 5] as number) | (1 << (rank & 31));
    summary[rank >>> 10] = (summary[rank >>> 10] as number) | (1 << ((rank >>> 5) & 31));
  }
}

/** The partitions besides `everywhere` the basket being marked sees (visiblePartitions' notes). */
let seenNos = visibleNos();

/**
 * The lowest marked rank at or above `from`, its rank bit cleared (its line bits are the caller's
 * to read and clear); -1 when none is left.
 */
export function nextMarkedRank(m: CandidateMarks, from: number): number {
  const { summary, ranks } = m;
  for (let s = from >>> 10; s < summary.length; s++) {
    let sw = summary[s] as number;
    while (sw !== 0) {
      const low = sw & -sw;
      const w = s * 32 + 31 - Math.clz32(low);
      const rw = ranks[w] as number;
      if (rw === 0) {
        sw &= ~low;
        summary[s] = sw;
        continue;
      }
      const lowRank = rw & -rw;
      ranks[w] = rw & ~lowRank;
      if (ranks[w] === 0) summary[s] = sw & ~low;
      return w * 32 + 31 - Math.clz32(lowRank);
    }
  }
  return -1;
}

/** Clears what a walk left marked (nothing after a walk to the end). */
function clearMarks(): void {
  const words = marks.words;
  for (let rank = nextMarkedRank(marks, 0); rank >= 0; rank = nextMarkedRank(marks, rank)) {
    marks.lines.fill(0, rank * words, rank * words + words);
  }
}
