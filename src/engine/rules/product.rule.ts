import { bookLineReward, lineCapMinor, type BasketState } from '../basket-state.js';
import { discountCode, discountOnUnitsOf, discountOnValueOf, discountOnWeighedLineOf } from '../discount.js';
import { NO_UNITS, NO_VALUE, qualifies, qualifyingLines, type ProductLevelRule } from './rule.js';
import type { Line } from '../basket-state.js';

/**
 * product: every qualifying unit gets `percent` of its price (taken of the units' combined value,
 * so one reward per position: 20 % on 3 x 2.45 = 1.47), `amount` off per unit (capped at the unit
 * price), or `price` as its new unit price. One application = one piece unit, or one whole kg line
 * (kg: percent of the line, amount off once per line, price as the new price per kg).
 * With a limit on applications the most valuable units are rewarded first, ties to the lower
 * PositionId. Units whose reward would be 0 are not taken.
 */
export const applyProductCampaign: ProductLevelRule = (campaign, state, maxApplications, candidates) => {
  // Without a limit the order does not matter: the candidates are read as they come, each checked
  // here, instead of being copied into a list of the qualifying ones first.
  const limited = Number.isFinite(maxApplications);
  const lines = limited ? qualifyingLines(campaign, candidates, campaign.products) : candidates;
  if (limited && lines.length > 1) (lines as Line[]).sort(byApplicationValueDesc);
  const { kind, figure } = discountCode(campaign.discount);
  let qualifying = 0;
  let remaining = maxApplications;
  let applications = 0;
  for (const line of lines) {
    if (!limited && !qualifies(campaign, campaign.products, line)) continue;
    qualifying += 1;
    if (remaining <= 0) break;
    const n = rewardProductLine(
      state,
      line,
      kind,
      figure,
      remaining,
      campaign.id,
      campaign.name,
      campaign.version,
    );
    remaining -= n;
    applications += n;
  }
  if (qualifying === 0) return NO_UNITS;
  return applications > 0 ? applications : NO_VALUE;
};

function applicationValue(line: Line): number {
  return line.weighedFree ? line.leftMinor : line.position.unitPriceMinor;
}

function byApplicationValueDesc(a: Line, b: Line): number {
  const d = applicationValue(b) - applicationValue(a);
  return d !== 0 ? d : a.position.positionId - b.position.positionId;
}

/**
 * One qualifying line's part of the product rule, for a discount of kind `kind` (DISCOUNT_* of
 * discount.ts) and figure `figure`, taking at most `remaining` applications: books the reward and
 * answers the applications taken (0: none). The walk over the index's candidates applies product
 * campaigns from their packed rows through it (indexed-evaluation.ts).
 */
export function rewardProductLine(
  state: BasketState,
  line: Line,
  kind: number,
  figure: number,
  remaining: number,
  couponId: number,
  name: string,
  version: number,
): number {
  const p = line.position;
  if (line.weighedFree) {
    const reward = Math.min(
      discountOnWeighedLineOf(kind, figure, p.unitPriceMinor, p.lineGrossMinor),
      lineCapMinor(state, line),
    );
    if (reward <= 0) return 0;
    line.weighedFree = false;
    bookLineReward(state, line, reward, 'campaign', couponId, name, version);
    return 1;
  }
  if (discountOnValueOf(kind, figure, p.unitPriceMinor) <= 0) return 0;
  const count = Math.min(line.freePieces, remaining);
  const reward = Math.min(
    discountOnUnitsOf(kind, figure, p.unitPriceMinor, count),
    lineCapMinor(state, line),
  );
  if (reward <= 0) return 0;
  line.freePieces -= count;
  bookLineReward(state, line, reward, 'campaign', couponId, name, version);
  return count;
}
