import { type Static, Type } from 'typebox';
import { Nullable } from '../shared/nullable.js';

/**
 * Operator API bodies of campaigns and loyalty schemes (docs/decisions.md, "Campaigns and schemes"): amounts in major units
 * (`2.5`), percentages in percent (`12.5`). Alternatives (`{percent} | {amount} | {price}`,
 * `{plu} | {group}`) are single objects with optional members: request field names are matched
 * case-insensitively against the schema before validation, which needs one set of names per
 * object; the conversion (rule.convert.ts) then insists on exactly one member, naming the field.
 */

export const DiscountSchema = Type.Object(
  {
    percent: Type.Optional(
      Type.Number({ description: 'Percent off, greater than 0 and at most 100, at most two decimals.' }),
    ),
    amount: Type.Optional(Type.Number({ description: 'Amount off in major units (2.5 = 2.50), > 0.' })),
    price: Type.Optional(Type.Number({ description: 'New price in major units, >= 0 (not on bill rules).' })),
  },
  { description: 'Exactly one of percent, amount, price.' },
);

export const SelectorSchema = Type.Object(
  {
    plu: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    group: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  },
  { description: 'Exactly one of plu (an article) or group (an article group and its subgroups).' },
);

export const CombinationPartSchema = Type.Object({
  plu: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  group: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  quantity: Type.Optional(
    Type.Integer({ description: 'Piece units of this part per application; default 1.' }),
  ),
});

export const ScheduleWindowSchema = Type.Object({
  days: Type.Array(Type.Integer(), { description: 'ISO weekdays, 1 = Monday .. 7 = Sunday.' }),
  from: Type.String({ description: 'Wall-clock start, HH:MM, inclusive.' }),
  to: Type.String({
    description:
      'Wall-clock end, HH:MM, exclusive, after `from` ("24:00" = end of the day). A window past midnight is two windows.',
  }),
});

const TimeField = (what: string) =>
  Type.Optional(
    Nullable(
      Type.String({
        maxLength: 40,
        description: `${what}, ISO 8601; without an offset it is read in the merchant's time zone.`,
      }),
    ),
  );

export const TierLimitSchema = Type.Object(
  {
    schemeId: Type.Integer({ description: 'A loyalty scheme of the merchant that has status tiers.' }),
    names: Type.Array(Type.String({ maxLength: 50 }), {
      maxItems: 10,
      description: "Names of the scheme's tiers (ignoring case), at least one.",
    }),
  },
  {
    description:
      'Only for consumers whose status tier in the scheme, before the basket, is one of these; absent or null: everyone. A name the scheme no longer defines never matches.',
  },
);

export const StackingSchema = Type.Object(
  {
    mode: Type.Union([Type.Literal('exclusive'), Type.Literal('stackable'), Type.Literal('group')], {
      description:
        'exclusive: one reward per unit as without a setting, and no stacked campaign adds to a unit it ' +
        'rewards; stackable: adds its reward on top of the rewards on a unit (not on top of an exclusive ' +
        "one or a group's); group: adds only to units that carry nothing yet or only rewards of the same group.",
    }),
    group: Type.Optional(
      Nullable(
        Type.String({ minLength: 1, maxLength: 100, description: 'mode group (required there): its name.' }),
      ),
    ),
  },
  {
    description:
      'product campaigns: how the campaign combines with others on a unit; absent or null: one reward per ' +
      'unit, as campaigns without a setting always have. Stacked campaigns apply after the others, by ' +
      'priority, then percent before amount before price, then id, each on what is left of the line.',
  },
);

const BudgetPeriod = Type.Unsafe<'day' | 'week' | 'month' | null>({
  type: ['string', 'null'],
  enum: ['day', 'week', 'month', null],
  description: "day, ISO week or month in the merchant's time zone (with periodAmount).",
});

export const BudgetSchema = Type.Object(
  {
    total: Type.Optional(
      Nullable(Type.Number({ description: 'Total discount the campaign may give, major units, > 0.' })),
    ),
    redemptions: Type.Optional(
      Nullable(
        Type.Integer({ description: 'Baskets the campaign may reward in total (a redemption each), >= 1.' }),
      ),
    ),
    period: Type.Optional(BudgetPeriod),
    periodAmount: Type.Optional(
      Nullable(Type.Number({ description: 'Discount the campaign may give per period, major units, > 0.' })),
    ),
  },
  {
    description:
      'Budgets, enforced at the grant: a reward that would exceed one is not granted (whole or not at ' +
      'all); the upload shows such a reward as it is. Absent or null members: not limited. The current ' +
      'limits apply to the next grant; what was granted before counts against them.',
  },
);

export const CampaignBodySchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  type: Type.Union([
    Type.Literal('bill'),
    Type.Literal('product'),
    Type.Literal('combination'),
    Type.Literal('quantity'),
  ]),
  discount: DiscountSchema,
  products: Type.Optional(
    Type.Array(SelectorSchema, {
      maxItems: 1000,
      description:
        'product and quantity campaigns (required there): the qualifying articles; [] = every article.',
    }),
  ),
  combination: Type.Optional(
    Type.Array(CombinationPartSchema, {
      maxItems: 20,
      description: 'combination campaigns: the parts one application needs.',
    }),
  ),
  buy: Type.Optional(Type.Integer({ description: 'quantity campaigns: units bought per group, >= 1.' })),
  get: Type.Optional(Type.Integer({ description: 'quantity campaigns: units rewarded per group, >= 1.' })),
  minTotal: Type.Optional(
    Type.Number({ description: 'bill campaigns: minimum total after product rewards, major units.' }),
  ),
  maxApplications: Type.Optional(
    Nullable(Type.Integer({ description: 'Per basket, >= 1; absent or null: bill 1, others unlimited.' })),
  ),
  couponCode: Type.Optional(
    Nullable(Type.String({ maxLength: 200, description: 'Applies only when ContextIdentifiers holds it.' })),
  ),
  uniqueCodes: Type.Optional(
    Type.Boolean({
      description:
        'Applies only when ContextIdentifiers holds one of its unused unique codes (made in batches: ' +
        'POST .../campaigns/{id}/codeBatches); the grant redeems the code, once across every till. ' +
        'Not together with couponCode. Default false.',
    }),
  ),
  requiresConsumer: Type.Optional(Type.Boolean()),
  validFrom: TimeField('Start of validity (inclusive)'),
  validTo: TimeField('End of validity (exclusive)'),
  schedule: Type.Optional(Type.Array(ScheduleWindowSchema, { maxItems: 50 })),
  outletIds: Type.Optional(
    Nullable(
      Type.Array(Type.Integer(), {
        maxItems: 10000,
        description: 'Outlets of the merchant; absent or null: every outlet.',
      }),
    ),
  ),
  channels: Type.Optional(
    Type.Array(Type.Union([Type.Literal('pos'), Type.Literal('checkout')]), {
      description: 'Absent: both.',
    }),
  ),
  priority: Type.Optional(Type.Integer({ description: 'Higher first; default 0.' })),
  exclusive: Type.Optional(Type.Boolean({ description: 'bill campaigns: no other bill campaign applies.' })),
  usageLimitPerConsumer: Type.Optional(Nullable(Type.Integer({ description: '>= 1; null: no limit.' }))),
  stacking: Type.Optional(Nullable(StackingSchema)),
  budget: Type.Optional(Nullable(BudgetSchema)),
  tiers: Type.Optional(Nullable(TierLimitSchema)),
});
export type CampaignBody = Static<typeof CampaignBodySchema>;

export const EarnRuleSchema = Type.Object({
  per: Type.Union([Type.Literal('amount'), Type.Literal('unit')]),
  amount: Type.Optional(
    Type.Number({ description: 'per amount: points per this much spent (major units).' }),
  ),
  products: Type.Optional(
    Type.Array(SelectorSchema, {
      maxItems: 1000,
      description: 'per unit (required there): the articles that earn; [] = every article.',
    }),
  ),
  points: Type.Integer({ description: 'Points per multiple or per unit, 1 to 1,000,000.' }),
});

export const SchemeRewardSchema = Type.Object({
  threshold: Type.Integer({ description: 'Points the reward costs, 1 to 1,000,000,000.' }),
  type: Type.Union([Type.Literal('product'), Type.Literal('bill')]),
  products: Type.Optional(
    Type.Array(SelectorSchema, {
      maxItems: 1000,
      description:
        'product rewards (required there): the articles one unit of which is rewarded; [] = every article.',
    }),
  ),
  discount: DiscountSchema,
});

export const TierSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 50, description: 'Unique within the scheme, e.g. "Silver".' }),
  threshold: Type.Number({
    description:
      'What reaches the tier over the period: points (measure points, a whole number) or money spent ' +
      '(measure spend, major units); ascending from tier to tier, > 0.',
  }),
  multiplier: Type.Number({
    description:
      'Points earned in the scheme are multiplied by this (1.5), 1 to 10, at most three decimals; rounded down.',
  }),
});

export const TierBasisSchema = Type.Object(
  {
    measure: Type.Union([Type.Literal('points'), Type.Literal('spend')], {
      description:
        'points: points earned in this scheme minus those returns took back; spend: gross of the granted baskets.',
    }),
    period: Type.Object(
      {
        rollingDays: Type.Optional(Type.Integer({ description: 'The last N days up to now, 1 to 3660.' })),
        calendar: Type.Optional(
          Type.Union([Type.Literal('month'), Type.Literal('quarter'), Type.Literal('year')], {
            description: "The current calendar month, quarter or year in the merchant's time zone.",
          }),
        ),
      },
      { description: 'Exactly one of rollingDays or calendar.' },
    ),
  },
  { description: 'What a tier is measured on; required with tiers.' },
);

export const SchemeBodySchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  earn: Type.Array(EarnRuleSchema, { maxItems: 50 }),
  reward: Type.Optional(Nullable(SchemeRewardSchema)),
  validFrom: TimeField('Start of validity (inclusive)'),
  validTo: TimeField('End of validity (exclusive)'),
  outletIds: Type.Optional(
    Nullable(
      Type.Array(Type.Integer(), {
        maxItems: 10000,
        description: 'Outlets of the merchant; absent or null: every outlet.',
      }),
    ),
  ),
  pointsExpireAfterDays: Type.Optional(
    Nullable(Type.Integer({ description: 'Earned points expire this many days after their grant.' })),
  ),
  tiers: Type.Optional(
    Type.Array(TierSchema, {
      maxItems: 10,
      description: 'Status tiers, thresholds ascending; absent or []: no tiers (earning as without).',
    }),
  ),
  tierBasis: Type.Optional(Nullable(TierBasisSchema)),
});
export type SchemeBody = Static<typeof SchemeBodySchema>;

/** Read side: the definition as stored plus the record's bookkeeping. */
const RecordFields = {
  id: Type.Integer(),
  version: Type.Integer({ description: 'Raised by every update; every version stays retrievable.' }),
  endedAt: Nullable(Type.String({ format: 'date-time' })),
  pausedAt: Type.Optional(
    Nullable(
      Type.String({
        format: 'date-time',
        description: 'When the merchant paused it (it gives nothing until resumed); null while it runs.',
      }),
    ),
  ),
  createdAt: Type.String({ format: 'date-time' }),
  updatedAt: Type.String({ format: 'date-time' }),
};

const Left = (what: string) => Nullable(Type.Number({ description: `${what}; null: not limited.` }));

export const BudgetRemainingSchema = Type.Object(
  {
    total: Left('Total discount left, major units (0 when used up)'),
    redemptions: Nullable(Type.Integer({ description: 'Redemptions left; null: not limited.' })),
    period: Nullable(
      Type.Object({
        start: Type.String({
          description: "First day of the current period, YYYY-MM-DD, merchant's time zone.",
        }),
        amount: Type.Number({ description: "Discount left of the current period's budget, major units." }),
      }),
    ),
  },
  {
    description:
      'What is left of the budgets now (granted rewards counted, returned ones given back); null when ' +
      'the campaign has no budget. Only on the current campaign, not on a past version.',
  },
);

export const CampaignRecordSchema = Type.Object(
  {
    ...RecordFields,
    ...CampaignBodySchema.properties,
    budgetRemaining: Type.Optional(Nullable(BudgetRemainingSchema)),
  },
  { title: 'Campaign' },
);
export const SchemeRecordSchema = Type.Object(
  { ...RecordFields, ...SchemeBodySchema.properties },
  { title: 'LoyaltyScheme' },
);

export const CreatedSchema = Type.Object(
  { id: Type.Integer(), version: Type.Integer() },
  { title: 'RuleVersion' },
);
