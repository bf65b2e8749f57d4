import { Type } from 'typebox';
import { Nullable } from '../../shared/nullable.js';
import { CampaignBodySchema, SchemeBodySchema } from '../../campaigns/rule.schemas.js';
import { BasketSchema, LoyaltyInfoSchema, RewardSchema } from './basket.schemas.js';
import { REASON_CODES, type ReasonCode } from '../../engine/reasons.js';

/** The dry run's request and answer on the operator API and the merchant portal (src/baskets/basket-dry-run.ts). */

const PointsByRule = Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
  description: 'Keyed by the id of a live rule or by "draft-N" (N counts from 1 in the request).',
});

export const DryRunBodySchema = Type.Object({
  basket: BasketSchema,
  campaigns: Type.Optional(
    Type.Array(CampaignBodySchema, {
      maxItems: 100,
      description: 'Draft campaigns, shown as draft-1, draft-2 ... (CouponId -1, -2 ...).',
    }),
  ),
  schemes: Type.Optional(
    Type.Array(SchemeBodySchema, {
      maxItems: 20,
      description: 'Draft loyalty schemes, shown as draft-1, draft-2 ... (LoyaltyId -1, -2 ...).',
    }),
  ),
  includeLiveCampaigns: Type.Optional(
    Type.Boolean({
      default: true,
      description: "true: the merchant's live campaigns and schemes take part too.",
    }),
  ),
  trackingUnitId: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        "The till the basket comes from (a terminal of the merchant): its outlet, and its sortiment for the articles' groups, as at its upload.",
    }),
  ),
  outletId: Type.Optional(
    Type.Integer({
      description:
        "Outlet of the basket, when no trackingUnitId is given (its groups from the sortiment of the outlet's terminal changed last that has one); absent with no trackingUnitId: no outlet (outlet-bound rules do not apply) and the groups of the merchant's only sortiment, if it has one.",
    }),
  ),
  channel: Type.Optional(
    Type.Union([Type.Literal('pos'), Type.Literal('checkout')], {
      default: 'pos',
      description:
        'pos: evaluated as a till\'s upload. checkout: as an online order is priced (docs/decisions.md, "The dry run on ' +
        'the channel checkout"): campaigns only, no outlet and no coupon codes, without loyalty schemes and the ' +
        "customer's points, with the customer's uses of campaigns with a usage limit and their status tiers (of the " +
        'consumerIdentToken, or of consumer.usages and consumer.tiers); consumer.points and schemes are refused with 400.',
    }),
  ),
  consumerIdentToken: Type.Optional(
    Type.String({
      maxLength: 100,
      description:
        "As the basket upload's query: the consumer's card (its points, usages and conditions apply).",
    }),
  ),
  giftCardId: Type.Optional(Type.String({ maxLength: 100, description: "As the basket upload's query." })),
  replaces: Type.Optional(
    Type.Object(
      {
        campaigns: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 100 })),
        schemes: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { maxItems: 20 })),
      },
      {
        description:
          'Live campaigns and schemes left out: the drafts stand in for them (the one being edited).',
      },
    ),
  ),
  consumer: Type.Optional(
    Type.Object(
      {
        points: Type.Optional(PointsByRule),
        usages: Type.Optional(PointsByRule),
        tiers: Type.Optional(
          Type.Record(Type.String(), Nullable(Type.String({ maxLength: 50 })), {
            description:
              'The status tier the stand-in consumer has before the basket, per scheme with tiers (keyed by the scheme\'s id or "draft-N"): a name of its tiers, or null for none. A scheme not named: no tier. The tier multiplies the points and opens the campaigns limited to it.',
          }),
        ),
      },
      {
        description:
          "A stand-in consumer with committed points per scheme and granted usages per campaign, instead of the basket's; absent: the consumer the basket identifies (ContextIdentifiers, consumerIdentToken), else anonymous.",
      },
    ),
  ),
  groups: Type.Optional(
    Type.Record(Type.String(), Type.Array(Type.String()), {
      description:
        "Article groups (with their ancestors) per PLU, for articles the till's sortiment does not hold; the sortiment's groups win.",
    }),
  ),
});

export const ExplanationSchema = Type.Object({
  campaignId: Type.Union([Type.Integer(), Type.String()], { description: 'Live id, or "draft-N".' }),
  name: Type.String(),
  applied: Type.Boolean(),
  applications: Type.Integer(),
  reason: Type.String({
    description: 'Why, in English words (for people); reasonCode says the same for programs.',
  }),
  reasonCode: Type.Unsafe<ReasonCode>({
    type: 'string',
    enum: [...REASON_CODES],
    description:
      'Why, as a code a client words in its own language (docs/decisions.md, "Why a campaign did not apply"): ' +
      'applied; a condition of the campaign the basket does not meet (not_valid_yet, expired, outlet_not_included, ' +
      'channel_not_included, coupon_code_not_presented, consumer_required, tier_not_held, usage_limit_needs_consumer, ' +
      'usage_limit_reached, outside_schedule, minimum_total_not_reached, basket_has_discounts, max_applications_zero); ' +
      'no_units_left and too_few_units (the articles are not in the basket, or not enough of them are free: blockedBy ' +
      'names the campaigns that took them); excluded_by_exclusive (blockedBy names the exclusive bill campaign); ' +
      'reward_zero; held_back_no_redemptions and held_back_budget (its budget); no_article_matches (a draft naming ' +
      'no article of the basket); invalid_buy_get and invalid_combination (a rule the engine cannot read).',
  }),
  blockedBy: Type.Optional(
    Type.Array(Type.Union([Type.Integer(), Type.String()]), {
      description:
        'The campaigns (live id or "draft-N") that kept it from applying, in the order they applied: with ' +
        'no_units_left and too_few_units those whose rewards took the units of its articles in this basket ' +
        '(processed before it: a higher priority, or the same priority and a lower id; for a campaign with a ' +
        'stacking setting, only those whose rewards it does not stack with); with excluded_by_exclusive the ' +
        'exclusive bill campaign.',
    }),
  ),
  tiers: Type.Optional(
    Type.Array(Type.String(), {
      description: 'With tier_not_held: the status tiers the campaign is limited to.',
    }),
  ),
  unitsNeeded: Type.Optional(
    Type.Integer({ description: 'With too_few_units: the free units one application needs (buy + get).' }),
  ),
  budget: Type.Optional(
    Type.Object(
      {
        reward: Type.Number({ description: 'The reward it would give, in the currency.' }),
        left: Type.Number({ description: 'What is left of its budget now, in the currency.' }),
      },
      { description: 'With held_back_budget: the reward against what is left of its budget.' },
    ),
  ),
  stacking: Type.Optional(
    Type.String({
      description:
        'How the campaign stacks: exclusive, stackable or "group <name>"; absent: no setting (one reward per unit). ' +
        'Its rewards on a position that already has one are stacked on it.',
    }),
  ),
  heldBackByBudget: Type.Optional(
    Type.Boolean({
      description:
        'true: the campaign would apply but its reward does not fit what is left of its budget now, so the ' +
        'basket gets it without (as the upload and the grant would); reason says what is left.',
    }),
  ),
});

export const DryRunResponseSchema = Type.Object({
  Rewards: Type.Array(RewardSchema),
  LoyaltyInfo: Type.Array(LoyaltyInfoSchema),
  explanations: Type.Array(ExplanationSchema, {
    description:
      'Every draft campaign, and every live campaign that names an article of the basket or is a bill campaign.',
  }),
  rulesVersion: Type.Integer({ description: 'Rules version of the live rules used (0 when none were).' }),
});

const rulesFields = DryRunBodySchema.properties;

export const RecentDryRunBodySchema = Type.Object({
  campaigns: rulesFields.campaigns,
  schemes: rulesFields.schemes,
  includeLiveCampaigns: rulesFields.includeLiveCampaigns,
  replaces: rulesFields.replaces,
  limit: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 100,
      default: 50,
      description:
        "How many of the merchant's baskets, the newest by their Timestamp first, and as many of its online " +
        'orders, the newest first; default 50.',
    }),
  ),
});

const RecentReasonSchema = Type.Object(
  {
    reasonCode: ExplanationSchema.properties.reasonCode,
    blockedBy: ExplanationSchema.properties.blockedBy,
    tiers: ExplanationSchema.properties.tiers,
    unitsNeeded: ExplanationSchema.properties.unitsNeeded,
    budget: Type.Optional(
      Type.Object(
        { reward: Type.Number(), left: Type.Number() },
        { description: 'With held_back_budget: the figures of the newest basket it held back.' },
      ),
    ),
    baskets: Type.Integer({ minimum: 1, description: 'In how many of the baskets and online orders.' }),
    example: Type.Union(
      [
        Type.Object(
          { trackingUnitId: Type.String(), basketId: Type.String() },
          { title: 'RecentDryRunBasketExample', description: "A till's basket." },
        ),
        Type.Object(
          {
            orderId: Type.String({ description: 'The order, as the portal and the operator API name it.' }),
            basketId: Type.String({ description: "The order's basketId, as the app sent it." }),
          },
          { title: 'RecentDryRunOrderExample', description: 'An online order of the checkout interface.' },
        ),
      ],
      { description: 'The newest of those baskets and orders, to open it.' },
    ),
  },
  { title: 'RecentDryRunReason' },
);

export const RecentDryRunResponseSchema = Type.Object(
  {
    baskets: Type.Integer({ minimum: 0, description: "The tills' baskets evaluated." }),
    orders: Type.Integer({
      minimum: 0,
      description:
        'The online orders of the checkout interface evaluated, as their pricing evaluates them (the channel ' +
        'checkout, no schemes, a campaign with a budget while it fits what is left of it now).',
    }),
    skipped: Type.Integer({
      minimum: 0,
      description:
        'Baskets that cannot be evaluated again as they were sent (their till removed since, a card they name locked or expired).',
    }),
    campaigns: Type.Array(
      Type.Object(
        {
          campaignId: ExplanationSchema.properties.campaignId,
          name: Type.String(),
          stacking: ExplanationSchema.properties.stacking,
          applied: Type.Integer({ minimum: 0, description: 'In how many baskets and orders it applied.' }),
          appliedOrders: Type.Integer({ minimum: 0, description: 'Of those, the online orders.' }),
          applications: Type.Integer({ minimum: 0, description: 'Its applications in them, added up.' }),
          discount: Type.Number({
            description: 'The discount it gave in them, added up, in the currency (GrossRewardValue).',
          }),
          reasons: Type.Array(RecentReasonSchema, {
            description:
              'Why it did not apply in the others: one entry per reasonCode and blockedBy, the most frequent first. no_article_matches: the basket holds none of its articles.',
          }),
        },
        { title: 'RecentDryRunCampaign' },
      ),
      { description: 'Every draft, then every live campaign by id.' },
    ),
    customers: Type.Integer({
      minimum: 0,
      description:
        'The baskets that named a customer (a card or a one-time password): only they earn points.',
    }),
    schemes: Type.Array(
      Type.Object(
        {
          schemeId: Type.Union([Type.Integer(), Type.String()], { description: 'Live id, or "draft-N".' }),
          name: Type.String(),
          baskets: Type.Integer({
            minimum: 0,
            description: 'In how many baskets it earned the customer points.',
          }),
          points: Type.Integer({
            minimum: 0,
            description:
              "The points it earned in them, added up (with each customer's status tier as it is now). Points " +
              "redeemed are not added up: they depend on each customer's balance as it grew basket by basket.",
          }),
        },
        { title: 'RecentDryRunScheme' },
      ),
      { description: 'Every draft scheme, then every live loyalty scheme by id.' },
    ),
    rulesVersion: DryRunResponseSchema.properties.rulesVersion,
  },
  { title: 'RecentDryRunResponse' },
);
