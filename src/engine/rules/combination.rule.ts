import { prorate } from '../../shared/prorate.js';
import { bookLineReward, type Line } from '../basket-state.js';
import { discountOnValue } from '../discount.js';
import { freeUnits, NO_UNITS, NO_VALUE, pieceLines, type ProductLevelRule } from './rule.js';
import { FIXED_REASONS } from '../reasons.js';

/**
 * combination: one application claims, for every part, `quantity` piece units matching its
 * selector (kg lines never: parts count pieces); a unit serves one part only. Units are picked
 * highest unit price first, ties to the lower PositionId, filling the part with the fewest
 * candidate units first. The reward of one application is `amount` off the claimed value (capped),
 * `percent` of it, or value - `price`. The total over all applications is split over the
 * triggering positions in proportion to the value each one gave, by largest remainder, ties to the
 * lower PositionId (docs/decisions.md, "Money" and "Reward engine rules"): one Rewards entry per position, same CouponId.
 * Every claimed unit, including those the reward does not reach, is taken: it takes no other
 * product-level reward.
 */
export const applyCombinationCampaign: ProductLevelRule = (campaign, state, maxApplications, candidates) => {
  const parts = campaign.combination;
  if (parts.length === 0 || parts.some((p) => !Number.isSafeInteger(p.quantity) || p.quantity < 1)) {
    return FIXED_REASONS.invalid_combination;
  }
  // Give up at the first part the basket cannot fill: most candidates name only one of the parts.
  const pools: Line[][] = [];
  const supply: number[] = [];
  for (const part of parts) {
    const pool = pieceLines(campaign, candidates, [part.selector]);
    const units = freeUnits(pool);
    if (units < part.quantity) return NO_UNITS;
    pools.push(pool);
    supply.push(units);
  }
  const fillOrder = parts.map((_, i) => i).sort((a, b) => (supply[a] ?? 0) - (supply[b] ?? 0) || a - b);

  const claimed = new Map<Line, number>(); // value claimed on each line over all applications
  const taken = new Map<Line, number>(); // units claimed on each line over all applications
  let applications = 0;
  let totalReward = 0;
  while (applications < maxApplications) {
    const tentative = new Map<Line, number>();
    let value = 0;
    let complete = true;
    for (const i of fillOrder) {
      let need = parts[i]?.quantity ?? 0;
      for (const line of pools[i] ?? []) {
        if (need === 0) break;
        const available = line.freePieces - (tentative.get(line) ?? 0);
        if (available <= 0) continue;
        const k = Math.min(available, need);
        tentative.set(line, (tentative.get(line) ?? 0) + k);
        value += k * line.position.unitPriceMinor;
        need -= k;
      }
      if (need > 0) {
        complete = false;
        break;
      }
    }
    if (!complete) break;
    const reward = discountOnValue(campaign.discount, value);
    if (reward <= 0) break;
    for (const [line, k] of tentative) {
      line.freePieces -= k;
      taken.set(line, (taken.get(line) ?? 0) + k);
      claimed.set(line, (claimed.get(line) ?? 0) + k * line.position.unitPriceMinor);
    }
    totalReward += reward;
    applications += 1;
  }
  if (applications === 0) return NO_VALUE;

  const lines = [...claimed.keys()].sort((a, b) => a.position.positionId - b.position.positionId);
  // Weights never exceed what is left of a line, so no share can either.
  const weights = lines.map((l) => Math.min(claimed.get(l) ?? 0, l.leftMinor));
  const cap = Math.min(
    state.billLeftMinor,
    weights.reduce((a, b) => a + b, 0),
  );
  const booked = Math.min(totalReward, cap);
  if (booked <= 0) {
    // Nothing would be booked (nothing left of the bill or of the claimed lines): the claimed
    // units are given back and the campaign does not apply.
    for (const [line, k] of taken) line.freePieces += k;
    return NO_VALUE;
  }
  const shares = prorate(booked, weights);
  lines.forEach((line, i) => {
    bookLineReward(state, line, shares[i] ?? 0, 'campaign', campaign.id, campaign.name, campaign.version);
  });
  return applications;
};
