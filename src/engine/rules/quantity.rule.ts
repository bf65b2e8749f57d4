import { bookLineReward, lineCapMinor } from '../basket-state.js';
import { discountOnUnits } from '../discount.js';
import { freeUnits, NO_VALUE, pieceLines, type ProductLevelRule } from './rule.js';
import { FIXED_REASONS, fewerThan } from '../reasons.js';

/**
 * quantity (buy `buy` get `get`): qualifying piece units are sorted by unit price, highest first,
 * ties to the lower PositionId, and cut into groups of buy + get in that order; in each full group
 * the `get` cheapest units (the last ones) get the discount (`percent` 100 = free; `amount` off or
 * `price` per unit also work). One application = one full group; every unit of a full group is
 * taken (the bought ones too), the units of an incomplete group are left for other campaigns.
 * kg lines never take part (piece-count rule).
 */
export const applyQuantityCampaign: ProductLevelRule = (campaign, state, maxApplications, candidates) => {
  const { buy, get } = campaign;
  if (!Number.isSafeInteger(buy) || !Number.isSafeInteger(get) || buy < 0 || get < 1)
    return FIXED_REASONS.invalid_buy_get;
  const size = buy + get;
  const lines = pieceLines(campaign, candidates, campaign.products);
  const units = freeUnits(lines);
  const groups = Math.min(Math.floor(units / size), maxApplications);
  if (groups === 0) return fewerThan(size);

  const taken: number[] = [];
  const rewarded: number[] = [];
  for (let i = 0; i < lines.length; i++) {
    taken.push(0);
    rewarded.push(0);
  }
  let li = 0;
  for (let g = 0; g < groups; g++) {
    for (let slot = 0; slot < size; slot++) {
      while (li < lines.length && (lines[li]?.freePieces ?? 0) - (taken[li] ?? 0) === 0) li += 1;
      taken[li] = (taken[li] ?? 0) + 1;
      if (slot >= buy) rewarded[li] = (rewarded[li] ?? 0) + 1;
    }
  }

  let total = 0;
  const rewards = lines.map((line, i) => {
    const r = Math.min(
      discountOnUnits(campaign.discount, line.position.unitPriceMinor, rewarded[i] ?? 0),
      line.leftMinor,
    );
    total += r;
    return r;
  });
  // What is booked is also capped by the bill left (lineCapMinor): with nothing left of the bill
  // (positions of negative value) the units are not taken and the campaign does not apply.
  if (total <= 0 || state.billLeftMinor <= 0) return NO_VALUE;
  lines.forEach((line, i) => {
    line.freePieces -= taken[i] ?? 0;
    bookLineReward(
      state,
      line,
      Math.min(rewards[i] ?? 0, lineCapMinor(state, line)),
      'campaign',
      campaign.id,
      campaign.name,
      campaign.version,
    );
  });
  return groups;
};
