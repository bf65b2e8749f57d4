import { describe, expect, it } from 'vitest';
import {
  FIXED_REASONS,
  REASON_CODES,
  excludedBy,
  fewerThan,
  onlyFor,
  reasonCode,
} from '../../src/engine/reasons.js';

/**
 * docs/decisions.md, "Why a campaign did not apply": every reason the engine gives has one code,
 * the same in every language, and no two reasons share one.
 */
describe('the reasons of the dry run', () => {
  it('each fixed reason has its own code', () => {
    for (const [code, text] of Object.entries(FIXED_REASONS)) expect(reasonCode(text)).toBe(code);
    expect(new Set(Object.values(FIXED_REASONS)).size).toBe(Object.keys(FIXED_REASONS).length);
  });

  it('the reasons with names or figures in them have theirs, whatever the names say', () => {
    expect(reasonCode(onlyFor(['Gold', 'Platinum']))).toBe('tier_not_held');
    expect(onlyFor(['Gold', 'Platinum'])).toBe('only for Gold, Platinum');
    // A tier named like another reason is still a tier.
    expect(reasonCode(onlyFor(['expired']))).toBe('tier_not_held');
    expect(reasonCode(fewerThan(3))).toBe('too_few_units');
    expect(fewerThan(3)).toBe('fewer than 3 qualifying units');
    expect(reasonCode(excludedBy(12))).toBe('excluded_by_exclusive');
    expect(reasonCode('applied')).toBe('applied');
  });

  it("the codes are listed once each, the engine's among them", () => {
    expect(new Set(REASON_CODES).size).toBe(REASON_CODES.length);
    for (const code of Object.keys(FIXED_REASONS)) expect(REASON_CODES).toContain(code);
  });
});
