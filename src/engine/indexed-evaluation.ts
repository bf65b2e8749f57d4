import { bookBillReward, type BasketState, type Line } from './basket-state.js';
import {
  CHANNEL_BITS,
  FLAG_CHECK_OUTLET,
  FLAG_COMBINATION,
  FLAG_PRODUCT_BY_ROW,
  FLAG_REQUIRES_CONSUMER,
  FLAG_TIERS,
  HOT,
  HOT_STRIDE,
  reachable,
  type CampaignIndex,
  type CampaignPartition,
  type IndexedCampaign,
  type ThresholdList,
} from './campaign-index.js';
import { tierAllows } from './campaign-conditions.js';
import { hasFreeUnits, markCandidates, nextMarkedRank } from './candidate-marks.js';
import { billApplications, billReward } from './rules/bill.rule.js';
import { applyCombinationCampaign } from './rules/combination.rule.js';
import { applyProductCampaign, rewardProductLine } from './rules/product.rule.js';
import { NO_UNITS, NO_VALUE } from './rules/rule.js';
import { applyQuantityCampaign } from './rules/quantity.rule.js';
import type { WallClock } from './schedule.js';
import { selectorMatches } from './selector.js';
import type { ProductLevelRule } from './rules/rule.js';
import type { Reason } from './reasons.js';
import type { ConsumerState, EngineBasket, RewardLine } from './types.js';

/*
 * Evaluation without explanations: only what applies is reported, so a campaign is looked at only
 * when it can match the basket. Product-level campaigns come from the index by the basket's PLUs
 * and groups (candidate-keys.ts), bill campaigns by the thresholds the basket's total reaches.
 * The result is that of the full evaluation with explanations, minus the explanations of what
 * did not apply (a property test holds both equal to an evaluation that reads every campaign).
 */

export const PRODUCT_LEVEL_RULES: Readonly<Record<'product' | 'combination' | 'quantity', ProductLevelRule>> =
  {
    product: applyProductCampaign,
    combination: applyCombinationCampaign,
    quantity: applyQuantityCampaign,
  };

/** A campaign applied, by id, with its number of applications. */
export type Applied = (campaignId: number, applications: number) => void;

/** CHANNEL_BITS of the basket's channel (compared, not looked up by name: a keyed load per campaign costs more). */
function channelBit(basket: EngineBasket): number {
  return basket.channel === 'pos'
    ? CHANNEL_BITS.pos
    : basket.channel === 'checkout'
      ? CHANNEL_BITS.checkout
      : 0;
}

/** The basket-level conditions from the index's packed numbers; 0 when the campaign cannot apply. */
function allowance(
  index: CampaignIndex,
  rank: number,
  basket: EngineBasket,
  channel: number,
  consumer: ConsumerState | null,
) {
  const h = index.hot;
  const at = rank * HOT_STRIDE;
  const now = basket.timestamp.utcMs;
  if (now < (h[at + HOT.validFromMs] as number) || now >= (h[at + HOT.validToMs] as number)) return 0;
  const flags = h[at + HOT.flags] as number;
  if ((flags & channel) === 0) return 0;
  if ((flags & FLAG_REQUIRES_CONSUMER) !== 0 && !basket.consumerKnown) return 0;
  if ((flags & FLAG_TIERS) !== 0) {
    const tiers = index.entries[rank]?.campaign.tiers;
    if (tiers && !tierAllows(tiers, basket, consumer)) return 0;
  }
  if ((flags & FLAG_CHECK_OUTLET) !== 0) {
    const outletIds = index.entries[rank]?.outletIds ?? null;
    if (outletIds !== null && (basket.outletId === null || !outletIds.includes(basket.outletId))) return 0;
  }
  let max = h[at + HOT.maxApplications] as number;
  const limit = h[at + HOT.usageLimit] as number;
  if (limit === limit) {
    if (consumer === null || !basket.consumerKnown) return 0;
    const left = limit - (consumer.usages.get(h[at + HOT.id] as number) ?? 0);
    if (left <= 0) return 0;
    max = Math.min(max, left);
  }
  return max >= 1 ? max : 0;
}

/**
 * Product, combination and quantity campaigns in processing order, each given the eligible lines
 * that name it and still have free units (by PositionId). A campaign whose lines are all taken is
 * skipped without being read: every rule would answer "no units" without changing anything (the
 * rules take no unit of a line without free ones, and a line taken stays taken).
 */
export function applyProductLevelCampaigns(
  index: CampaignIndex,
  state: BasketState,
  consumer: ConsumerState | null,
  applied: Applied,
): void {
  const basket = state.basket;
  const lines = state.lines;
  const m = markCandidates(index.keys, lines, basket.outletId, basket.couponCodes);
  const { words, free } = m;
  const bits = m.lines;
  const hot = index.hot;
  const channel = channelBit(basket);
  if (givenBits.length < words) givenBits = new Int32Array(words);
  for (let rank = nextMarkedRank(m, 0); rank >= 0; rank = nextMarkedRank(m, rank)) {
    let any = 0;
    for (let w = 0; w < words; w++) any |= (bits[rank * words + w] as number) & (free[w] as number);
    // Nothing of the campaign is read unless it has a free line and passes the basket-level checks.
    const max = any === 0 ? 0 : allowance(index, rank, basket, channel, consumer);
    if (max === 0) {
      for (let w = 0; w < words; w++) bits[rank * words + w] = 0;
      continue;
    }
    const flags = hot[rank * HOT_STRIDE + HOT.flags] as number;
    if ((flags & FLAG_PRODUCT_BY_ROW) !== 0 && max === Number.POSITIVE_INFINITY) {
      takeLineBits(bits, rank, words, free);
      const start = state.rewards.length;
      const result = applyProductByRow(index, rank, state);
      sortTailByPosition(state.rewards, start);
      if (typeof result !== 'number') continue;
      applied(hot[rank * HOT_STRIDE + HOT.id] as number, result);
      dropTakenGiven(free, lines, words);
      continue;
    }
    const own = freeLinesOf(bits, rank, words, free, lines);
    const combination = (flags & FLAG_COMBINATION) !== 0;
    const entry = index.entries[rank] as IndexedCampaign;
    // found by one part: its lines are those of every part
    const given = combination ? linesOfParts(entry, lines) : own;
    const needed = hot[rank * HOT_STRIDE + HOT.minUnits] as number;
    if (needed > 0 && freePieceUnits(given) < needed) continue;
    const type = entry.type;
    if (type === 'bill') continue;
    const start = state.rewards.length;
    const result =
      type === 'product'
        ? applyProductCampaign(entry.campaign, state, max, given)
        : type === 'quantity'
          ? applyQuantityCampaign(entry.campaign, state, max, given)
          : applyCombinationCampaign(entry.campaign, state, max, given);
    sortTailByPosition(state.rewards, start);
    if (typeof result !== 'number') continue;
    applied(entry.id, result);
    // What the campaign took is no longer free for the campaigns after it: it took only from the
    // lines it was given (a combination: the lines of its parts, which need not be marked).
    if (combination) {
      for (let lineNo = 0; lineNo < lines.length; lineNo++) dropIfTaken(free, lines, lineNo);
    } else dropTakenGiven(free, lines, words);
  }
}

function dropTakenGiven(free: Int32Array, lines: readonly Line[], words: number): void {
  for (let w = 0; w < words; w++) {
    for (let b = givenBits[w] as number; b !== 0; b &= b - 1) {
      dropIfTaken(free, lines, w * 32 + 31 - Math.clz32(b & -b));
    }
  }
}

/**
 * The product rule (rules/product.rule.ts) without a limit on applications, for a campaign of
 * FLAG_PRODUCT_BY_ROW on the lines in givenBits: its discount, id and version from its packed row,
 * its name from `names`, so that its object is not read. Each given line matches one of its
 * selectors (the index found it by one of them) and no schedule restricts it, so a line qualifies
 * when it is eligible and has free units, as the rule checks.
 */
function applyProductByRow(index: CampaignIndex, rank: number, state: BasketState): number | Reason {
  const hot = index.hot;
  const at = rank * HOT_STRIDE;
  const kind = hot[at + HOT.discountKind] as number;
  const figure = hot[at + HOT.discountFigure] as number;
  const lines = state.lines;
  let qualifying = 0;
  let applications = 0;
  for (let w = 0; w < givenBits.length; w++) {
    for (let b = givenBits[w] as number; b !== 0; b &= b - 1) {
      const line = lines[w * 32 + 31 - Math.clz32(b & -b)] as Line;
      if (!line.eligible || (line.freePieces === 0 && !line.weighedFree)) continue;
      qualifying += 1;
      const id = hot[at + HOT.id] as number;
      const version = hot[at + HOT.version] as number;
      const name = index.names[rank] as string;
      applications += rewardProductLine(state, line, kind, figure, Infinity, id, name, version);
    }
  }
  if (qualifying === 0) return NO_UNITS;
  return applications > 0 ? applications : NO_VALUE;
}

function dropIfTaken(free: Int32Array, lines: readonly Line[], lineNo: number): void {
  if (!hasFreeUnits(lines[lineNo] as Line))
    free[lineNo >>> 5] = (free[lineNo >>> 5] as number) & ~(1 << (lineNo & 31));
}

/** The line bits of the campaign being applied (free lines naming it), one word per 32 lines. */
let givenBits = new Int32Array(1);

/** Notes the free lines marked for `rank` in givenBits and clears the rank's line bits. */
function takeLineBits(bits: Int32Array, rank: number, words: number, free: Int32Array): void {
  for (let w = 0; w < words; w++) {
    givenBits[w] = (bits[rank * words + w] as number) & (free[w] as number);
    bits[rank * words + w] = 0;
  }
  for (let w = words; w < givenBits.length; w++) givenBits[w] = 0;
}

/**
 * The free lines marked for `rank`, by PositionId, noted in givenBits; clears the rank's line bits.
 * The list is allocated at its size (mostly one line), not grown line by line.
 */
function freeLinesOf(
  bits: Int32Array,
  rank: number,
  words: number,
  free: Int32Array,
  lines: readonly Line[],
): Line[] {
  let count = 0;
  for (let w = 0; w < words; w++) {
    const b = (bits[rank * words + w] as number) & (free[w] as number);
    bits[rank * words + w] = 0;
    givenBits[w] = b;
    count += bitCount(b);
  }
  if (count === 1) {
    for (let w = 0; ; w++) {
      const b = givenBits[w] as number;
      if (b !== 0) return [lines[w * 32 + 31 - Math.clz32(b & -b)] as Line];
    }
  }
  const own = new Array<Line>(count);
  let at = 0;
  for (let w = 0; w < words; w++) {
    for (let b = givenBits[w] as number; b !== 0; b &= b - 1) {
      own[at++] = lines[w * 32 + 31 - Math.clz32(b & -b)] as Line;
    }
  }
  return own;
}

function bitCount(x: number): number {
  let n = 0;
  for (let b = x; b !== 0; b &= b - 1) n++;
  return n;
}

/** Eligible lines one of the combination's parts names, by PositionId. */
function linesOfParts(entry: IndexedCampaign, lines: readonly Line[]): Line[] {
  const parts = entry.campaign.combination;
  const out: Line[] = [];
  for (const line of lines) {
    if (!line.eligible) continue;
    for (const part of parts) {
      if (selectorMatches(part.selector, line.position)) {
        out.push(line);
        break;
      }
    }
  }
  return out;
}

/** Free piece units of the lines (a quantity or combination campaign counts nothing else). */
function freePieceUnits(lines: readonly Line[]): number {
  let n = 0;
  for (const line of lines) if (line.position.unit === 0) n += line.freePieces;
  return n;
}

/** One campaign's rewards are listed by PositionId. */
export function sortTailByPosition(rewards: RewardLine[], start: number): void {
  let sorted = true;
  for (let i = start + 1; i < rewards.length && sorted; i++) {
    sorted = (rewards[i - 1] as RewardLine).positionId <= (rewards[i] as RewardLine).positionId;
  }
  if (sorted) return;
  const tail = rewards.splice(start).sort((a, b) => a.positionId - b.positionId);
  rewards.push(...tail);
}

let sharedRanks = new Int32Array(64);

/**
 * Bill campaigns (the rule of rules/bill.rule.ts, which the evaluation with explanations runs):
 * only those whose minimum total the bill left reaches are read. The first applicable exclusive
 * one in processing order is then the only bill reward; without one, every applicable campaign
 * in processing order takes its reward of the bill left at its turn, until nothing is left.
 */
export function applyReachableBillCampaigns(
  index: CampaignIndex,
  partitions: readonly CampaignPartition[],
  state: BasketState,
  basketClock: WallClock,
  consumer: ConsumerState | null,
  applied: Applied,
): void {
  const base = state.billLeftMinor;
  if (base <= 0) return;
  const applications = (rank: number): number =>
    billApplicationsAt(index, rank, base, state, basketClock, consumer);

  let exclusive = -1;
  let exclusiveApplications = 0;
  for (const p of partitions) {
    const list = p.billExclusive;
    const reached = reachable(list, base);
    for (let j = 0; j < reached; j++) {
      const rank = list.ranks[j] as number;
      if (exclusive >= 0 && rank > exclusive) continue;
      const n = applications(rank);
      if (n > 0) {
        exclusive = rank;
        exclusiveApplications = n;
      }
    }
  }
  if (exclusive >= 0) {
    book(index, exclusive, exclusiveApplications, state, applied);
    return;
  }

  let count = 0;
  for (const p of partitions) count = collect(p.billShared, base, count);
  const ranks = sharedRanks.subarray(0, count);
  if (count > 1) ranks.sort();
  for (let j = 0; j < count && state.billLeftMinor > 0; j++) {
    const rank = ranks[j] as number;
    const n = applications(rank);
    if (n > 0) book(index, rank, n, state, applied);
  }
}

function collect(list: ThresholdList, base: number, count: number): number {
  const reached = reachable(list, base);
  if (count + reached > sharedRanks.length) {
    const next = new Int32Array(Math.max(count + reached, 2 * sharedRanks.length));
    next.set(sharedRanks);
    sharedRanks = next;
  }
  sharedRanks.set(list.ranks.subarray(0, reached), count);
  return count + reached;
}

/** Applications of a bill campaign against the total `base`, or 0 when it cannot apply. */
function billApplicationsAt(
  index: CampaignIndex,
  rank: number,
  base: number,
  state: BasketState,
  basketClock: WallClock,
  consumer: ConsumerState | null,
): number {
  const max = allowance(index, rank, state.basket, channelBit(state.basket), consumer);
  if (max === 0) return 0;
  const result = billApplications(index.entries[rank] as IndexedCampaign, max, base, basketClock);
  return typeof result === 'number' ? result : 0;
}

function book(index: CampaignIndex, rank: number, n: number, state: BasketState, applied: Applied): void {
  const entry = index.entries[rank] as IndexedCampaign;
  const reward = billReward(entry, state.billLeftMinor, n);
  if (reward <= 0) return;
  const c = entry.campaign;
  bookBillReward(state, reward, 'campaign', c.id, c.name, c.version);
  applied(c.id, n);
}
