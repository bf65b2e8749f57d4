import {
  bookLineReward,
  byUnitPriceDesc,
  lineCapMinor,
  type BasketState,
  type Line,
} from './basket-state.js';
import { campaignAllowance } from './campaign-conditions.js';
import type { CampaignIndex, IndexedCampaign } from './campaign-index.js';
import type { ExclusiveVersions } from './exclusive-versions.js';
import { discountOnUnits, discountOnValue, discountOnWeighedLine } from './discount.js';
import { sortTailByPosition } from './indexed-evaluation.js';
import { inSchedule } from './schedule.js';
import { anySelectorMatches } from './selector.js';
import { findCandidatePairs } from './candidate-keys.js';
import type { Campaign, ConsumerState } from './types.js';
import { NO_UNITS, NO_VALUE } from './rules/rule.js';
import type { Reason } from './reasons.js';

/*
 * Stacking per campaign (docs/decisions.md, "Stacking"). Campaigns without a stacking setting and
 * exclusive ones take units one reward each, as before; afterwards the product campaigns set to
 * stack add their rewards in order of application (priority, then percentage before amount before
 * price, then id), each on what is left of the line after the rewards before it, never more than
 * that (a unit is never discounted below zero) nor more than the bill left.
 */

/** What a line already carries: nothing, one-per-unit rewards, stackable ones, a group's, or an exclusive one. */
const NOTHING = '';
const SINGLE = '\u0000single';
const ALL = '\u0000all';
const EXCLUSIVE = '\u0000exclusive';

/** What each line carries after the campaigns without a stacking setting and the exclusive ones. */
export function stackingCarries(state: BasketState, exclusive: ExclusiveVersions): Map<number, string> {
  const carries = new Map<number, string>();
  for (const line of state.lines) {
    const gross = Math.max(0, line.position.lineGrossMinor);
    carries.set(line.position.positionId, line.leftMinor < gross ? SINGLE : NOTHING);
  }
  for (const r of state.rewards) {
    if (r.rewardType === 1 && exclusive.get(r.couponId)?.has(r.campaignVersion))
      carries.set(r.positionId, EXCLUSIVE);
  }
  return carries;
}

/**
 * Every stacked campaign in order of application, with the reason of each that does not apply (dry
 * run); one left without a line it may add to names the campaigns whose rewards it does not stack with.
 */
export function applyEveryStackedCampaign(
  index: CampaignIndex,
  state: BasketState,
  consumer: ConsumerState | null,
  note: (entry: IndexedCampaign, result: number | Reason, blockedBy?: number[]) => void,
): void {
  const carries = stackingCarries(state, index.exclusive);
  for (const entry of index.stacked) {
    const allowance = campaignAllowance(entry, state.basket, consumer);
    if (typeof allowance === 'string') {
      note(entry, allowance);
      continue;
    }
    const start = state.rewards.length;
    const result = applyStackedCampaign(entry.campaign, state, allowance, carries, state.lines);
    sortTailByPosition(state.rewards, start);
    const blockedBy =
      result === NO_UNITS ? stackBlockers(entry.campaign, state, carries, index.exclusive) : [];
    note(entry, result, blockedBy);
  }
}

/**
 * The stacked campaigns that can match the basket, found in the index by the PLUs and groups of
 * its eligible lines (as the other product-level campaigns), in order of application, each given
 * the lines that name it; only those that apply are reported. The rewards are those of
 * applyEveryStackedCampaign: a campaign no line names has no line to reward.
 */
export function applyStackedCandidates(
  index: CampaignIndex,
  state: BasketState,
  consumer: ConsumerState | null,
  applied: (entry: IndexedCampaign, applications: number) => void,
): void {
  const basket = state.basket;
  const lines = state.lines;
  const { pairs, count } = findCandidatePairs(index.stackedKeys, lines, basket.outletId, basket.couponCodes);
  if (count === 0) return;
  const carries = stackingCarries(state, index.exclusive);
  const span = lines.length;
  let i = 0;
  while (i < count) {
    const rank = Math.floor((pairs[i] as number) / span);
    const next = (rank + 1) * span;
    const own: Line[] = [];
    for (; i < count && (pairs[i] as number) < next; i++) {
      const line = lines[(pairs[i] as number) - rank * span] as Line;
      if (own[own.length - 1] !== line) own.push(line);
    }
    const entry = index.stacked[rank] as IndexedCampaign;
    const allowance = campaignAllowance(entry, basket, consumer);
    if (typeof allowance === 'string') continue;
    const start = state.rewards.length;
    const result = applyStackedCampaign(entry.campaign, state, allowance, carries, own);
    sortTailByPosition(state.rewards, start);
    if (typeof result === 'number') applied(entry, result);
  }
}

/**
 * One stacked campaign on those of `candidates` (lines in basket order) it names and may add to,
 * `carries` updated with what it rewards.
 */
export function applyStackedCampaign(
  c: Campaign,
  state: BasketState,
  maxApplications: number,
  carries: Map<number, string>,
  candidates: readonly Line[],
): number | Reason {
  const own = ownCarry(c);
  const lines = candidates.filter(
    (line) =>
      line.leftMinor > 0 && combines(carries.get(line.position.positionId) ?? NOTHING, own) && names(c, line),
  );
  if (lines.length === 0) return NO_UNITS;
  if (Number.isFinite(maxApplications) && lines.length > 1) lines.sort(byUnitPriceDesc);
  let remaining = maxApplications;
  let applications = 0;
  for (const line of lines) {
    if (remaining <= 0) break;
    const p = line.position;
    const count = p.unit === 1 ? 1 : Math.min(Math.floor(p.pieces), remaining);
    if (count <= 0) continue;
    const reward = Math.min(stackedReward(c.discount, line, count), lineCapMinor(state, line));
    if (reward <= 0) continue;
    bookLineReward(state, line, reward, 'campaign', c.id, c.name, c.version);
    if ((carries.get(p.positionId) ?? NOTHING) === NOTHING) carries.set(p.positionId, own);
    remaining -= count;
    applications += count;
  }
  return applications > 0 ? applications : NO_VALUE;
}

/** What a line carries once the campaign has rewarded it first. */
function ownCarry(c: Campaign): string {
  return c.stacking?.mode === 'group' ? `group:${c.stacking.group}` : ALL;
}

/** Whether a campaign carrying `own` may add to a line that carries `has`. */
function combines(has: string, own: string): boolean {
  return has === NOTHING || has === own || (own === ALL && has === SINGLE);
}

/** Whether the campaign names the line: an eligible article of it with a price, inside its times. */
function names(c: Campaign, line: Line): boolean {
  const p = line.position;
  return (
    line.eligible &&
    p.unitPriceMinor > 0 &&
    anySelectorMatches(c.products, p) &&
    inSchedule(c.schedule, line.clock)
  );
}

/**
 * The campaigns (each once, in the order they rewarded) whose rewards keep a stacked campaign off
 * the lines it names. A group's campaign adds to nothing but its own group, so every reward on such
 * a line is in its way; one that stacks with all is kept off only by an exclusive reward or a
 * group's, so on a line an exclusive campaign holds only that one is named (not a campaign without
 * a setting on other units of the line, which it adds to). A line whose value is used up by
 * campaigns it stacks with names none: only the price was in the way.
 */
function stackBlockers(
  c: Campaign,
  state: BasketState,
  carries: ReadonlyMap<number, string>,
  exclusive: ExclusiveVersions,
): number[] {
  const own = ownCarry(c);
  const blocked = new Map<number, string>();
  for (const line of state.lines) {
    const has = carries.get(line.position.positionId) ?? NOTHING;
    if (!combines(has, own) && names(c, line)) blocked.set(line.position.positionId, has);
  }
  const out: number[] = [];
  for (const r of state.rewards) {
    const has = r.source === 'campaign' ? blocked.get(r.positionId) : undefined;
    if (has === undefined || out.includes(r.couponId)) continue;
    const onlyExclusive = own === ALL && has === EXCLUSIVE;
    if (!onlyExclusive || exclusive.get(r.couponId)?.has(r.campaignVersion) === true) out.push(r.couponId);
  }
  return out;
}

/**
 * Percentage of what is left of the units (line gross minus earlier rewards, for `count` of the
 * line's pieces their share of it); amount and price per unit as in the product rule.
 */
function stackedReward(discount: Campaign['discount'], line: Line, count: number): number {
  const p = line.position;
  const all = p.unit === 1 || count >= p.pieces;
  const base = all ? line.leftMinor : Math.min(line.leftMinor, p.unitPriceMinor * count);
  if (discount.kind === 'percent') return discountOnValue(discount, base);
  const off =
    p.unit === 1
      ? discountOnWeighedLine(discount, p.unitPriceMinor, p.lineGrossMinor)
      : discountOnUnits(discount, p.unitPriceMinor, count);
  return Math.min(off, base);
}
