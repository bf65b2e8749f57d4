import { anySelectorMatches } from '../selector.js';
import { inSchedule } from '../schedule.js';
import { byUnitPriceDesc, type BasketState, type Line } from '../basket-state.js';
import type { Campaign, Selector } from '../types.js';
import { FIXED_REASONS, type Reason } from '../reasons.js';

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
) => number | Reason;

/** Eligible lines that match the selectors and whose wall clock is inside the campaign's schedule. */
export function qualifyingLines(
  campaign: Campaign,
  candidates: readonly Line[],
  selectors: readonly Selector[],
): Line[] {
  const out: Line[] = [];
  for (const line of candidates) if (qualifies(campaign, selectors, line)) out.push(line);
  return out;
}

/** Whether a line qualifies (see qualifyingLines). */
export function qualifies(campaign: Campaign, selectors: readonly Selector[], line: Line): boolean {
  if (!line.eligible) return false;
  if (line.freePieces === 0 && !line.weighedFree) return false;
  if (!anySelectorMatches(selectors, line.position)) return false;
  return inSchedule(campaign.schedule, line.clock);
}

export const NO_UNITS = FIXED_REASONS.no_units_left;
export const NO_VALUE = FIXED_REASONS.reward_zero;

/** Eligible piece lines (never kg) with free units that match one selector, in the schedule, highest unit price first. */
export function pieceLines(
  campaign: Campaign,
  candidates: readonly Line[],
  selectors: readonly Selector[],
): Line[] {
  const out: Line[] = [];
  for (const line of candidates) {
    if (!line.eligible || line.freePieces === 0 || line.position.unit !== 0) continue;
    if (!anySelectorMatches(selectors, line.position)) continue;
    if (!inSchedule(campaign.schedule, line.clock)) continue;
    out.push(line);
  }
  if (out.length > 1) out.sort(byUnitPriceDesc);
  return out;
}

/** Free piece units of the lines. */
export function freeUnits(lines: readonly Line[]): number {
  let n = 0;
  for (const l of lines) n += l.freePieces;
  return n;
}
