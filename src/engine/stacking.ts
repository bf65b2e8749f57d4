import {
  bookLineReward,
  byUnitPriceDesc,
  lineCapMinor,
  type BasketState,
  type Line,
} from './basket-state.js';
import { campaignAllowance } from './campaign-conditions.js';
import type { CampaignIndex, IndexedCampaign } from './campaign-index.js';
import { discountOnUnits, discountOnValue, discountOnWeighedLine } from './discount.js';
import { sortTailByPosition } from './indexed-evaluation.js';
import { inSchedule } from './schedule.js';
import { anySelectorMatches } from './selector.js';
import type { ConsumerState } from './types.js';

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

export function applyStackedCampaigns(
  index: CampaignIndex,
  state: BasketState,
  consumer: ConsumerState | null,
  note: (entry: IndexedCampaign, result: number | string) => void,
): void {
  const carries = new Map<number, string>();
  for (const line of state.lines) {
    const gross = Math.max(0, line.position.lineGrossMinor);
    carries.set(line.position.positionId, line.leftMinor < gross ? SINGLE : NOTHING);
  }
  for (const r of state.rewards) {
    if (r.rewardType === 1 && index.exclusiveIds.has(r.couponId)) carries.set(r.positionId, EXCLUSIVE);
  }
  for (const entry of index.stacked) {
    const allowance = campaignAllowance(entry, state.basket, consumer);
    if (typeof allowance === 'string') {
      note(entry, allowance);
      continue;
    }
    const start = state.rewards.length;
    note(entry, applyStacked(entry, state, allowance, carries));
    sortTailByPosition(state.rewards, start);
  }
}

function applyStacked(
  entry: IndexedCampaign,
  state: BasketState,
  maxApplications: number,
  carries: Map<number, string>,
): number | string {
  const c = entry.campaign;
  const own = c.stacking?.mode === 'group' ? `group:${c.stacking.group}` : ALL;
  const lines = state.lines.filter((line) => {
    const p = line.position;
    if (!line.eligible || p.unitPriceMinor <= 0 || line.leftMinor <= 0) return false;
    const has = carries.get(p.positionId) ?? NOTHING;
    const combines = has === NOTHING || has === own || (own === ALL && has === SINGLE);
    return combines && anySelectorMatches(c.products, p) && inSchedule(c.schedule, line.clock);
  });
  if (lines.length === 0) return 'no qualifying units left';
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
  return applications > 0 ? applications : 'reward would be 0';
}

/**
 * Percentage of what is left of the units (line gross minus earlier rewards, for `count` of the
 * line's pieces their share of it); amount and price per unit as in the product rule.
 */
function stackedReward(discount: IndexedCampaign['campaign']['discount'], line: Line, count: number): number {
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
