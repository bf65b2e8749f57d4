import { anySelectorMatches } from '../selector.js';
import { inSchedule } from '../schedule.js';
import type { BasketState, Line } from '../basket-state.js';
import type { Campaign, Selector } from '../types.js';

/**
 * A product-level rule gives its rewards into the working state and answers how many applications
 * it made (>= 1), or why it made none. It never takes more than `maxApplications`.
 */
export type ProductLevelRule = (
  campaign: Campaign,
  state: BasketState,
  maxApplications: number,
  /** Lines the index found for this campaign (a superset of what qualifies), by PositionId. */
  candidates: readonly Line[],
) => number | string;

/** Eligible lines that match the selectors and whose wall clock is inside the campaign's schedule. */
export function qualifyingLines(
  campaign: Campaign,
  candidates: readonly Line[],
  selectors: readonly Selector[],
): Line[] {
  const out: Line[] = [];
  for (const line of candidates) {
    if (!line.eligible) continue;
    if (line.freePieces === 0 && !line.weighedFree) continue;
    if (!anySelectorMatches(selectors, line.position)) continue;
    if (!inSchedule(campaign.schedule, line.clock)) continue;
    out.push(line);
  }
  return out;
}

export const NO_UNITS = 'no qualifying units left';
export const NO_VALUE = 'reward would be 0';
