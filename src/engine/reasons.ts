/**
 * Why a campaign gave a basket nothing (docs/decisions.md, "Why a campaign did not apply"): every
 * reason the engine can give, as the text the dry run's `reason` has always said, and its code, the
 * same in every language, which a client words in its own (the portal in English and German).
 * The engine returns only these texts: the type below lets no other string through, so every
 * reason has a code.
 */
export const FIXED_REASONS = {
  basket_has_discounts: 'basket has discounts',
  not_valid_yet: 'not valid yet',
  expired: 'expired',
  outlet_not_included: 'outlet not included',
  channel_not_included: 'channel not included',
  coupon_code_not_presented: 'coupon code not presented',
  consumer_required: 'consumer required',
  usage_limit_needs_consumer: 'usage limit needs an identified consumer',
  usage_limit_reached: 'usage limit reached',
  max_applications_zero: 'max applications is 0',
  outside_schedule: 'outside schedule',
  minimum_total_not_reached: 'minimum total not reached',
  reward_zero: 'reward would be 0',
  no_units_left: 'no qualifying units left',
  invalid_buy_get: 'invalid buy/get',
  invalid_combination: 'invalid combination',
} as const;

type FixedCode = keyof typeof FIXED_REASONS;
type FixedReason = (typeof FIXED_REASONS)[FixedCode];

/** A reason with a figure or names in it. */
export type TierReason = `only for ${string}`;
export type TooFewReason = `fewer than ${number} qualifying units`;
export type ExcludedReason = `excluded by exclusive bill campaign ${number}`;

/** Every reason the engine gives for a campaign that did not apply. */
export type Reason = FixedReason | TierReason | TooFewReason | ExcludedReason;

/** The campaign is limited to status tiers the consumer does not hold (their names). */
export const onlyFor = (names: readonly string[]): TierReason => `only for ${names.join(', ')}`;
/** A quantity campaign's full group (buy + get) needs more free units than the basket has. */
export const fewerThan = (size: number): TooFewReason => `fewer than ${size} qualifying units`;
/** An exclusive bill campaign applied, so no other bill campaign does. */
export const excludedBy = (campaignId: number): ExcludedReason =>
  `excluded by exclusive bill campaign ${campaignId}`;

/**
 * The codes of the dry run's explanations: the engine's reasons, `applied`, and the dry run's own
 * (a budget holding a campaign back, a draft naming no article of the basket).
 */
export const REASON_CODES = [
  'applied',
  ...(Object.keys(FIXED_REASONS) as FixedCode[]),
  'tier_not_held',
  'too_few_units',
  'excluded_by_exclusive',
  'held_back_no_redemptions',
  'held_back_budget',
  'no_article_matches',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

const BY_TEXT = new Map<string, FixedCode>(
  Object.entries(FIXED_REASONS).map(([code, text]) => [text, code as FixedCode]),
);

/** The code of an engine reason (`applied` for the applied campaigns' explanations). */
export function reasonCode(reason: Reason | 'applied'): ReasonCode {
  if (reason === 'applied') return 'applied';
  const fixed = BY_TEXT.get(reason);
  if (fixed !== undefined) return fixed;
  if (reason.startsWith('only for ')) return 'tier_not_held';
  if (reason.startsWith('fewer than ')) return 'too_few_units';
  return 'excluded_by_exclusive';
}
