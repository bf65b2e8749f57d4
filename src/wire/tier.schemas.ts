import { Type } from 'typebox';
import { Nullable } from '../shared/nullable.js';

/**
 * A consumer's standing in a loyalty scheme with status tiers, as the operator API and the portal
 * answer it (docs/decisions.md, "Status tiers"). Not on the POS wire: LoyaltyInfo has no tier field.
 */
export const TierStatusSchema = Type.Object(
  {
    schemeId: Type.Integer(),
    schemeName: Type.String(),
    measure: Type.Union([Type.Literal('points'), Type.Literal('spend')]),
    period: Type.Object({
      rollingDays: Type.Optional(Type.Integer()),
      calendar: Type.Optional(
        Type.Union([Type.Literal('month'), Type.Literal('quarter'), Type.Literal('year')]),
      ),
    }),
    value: Type.Integer({
      description: 'Points earned (measure points) or minor units spent (spend) in the period so far.',
    }),
    tier: Nullable(
      Type.Object({
        name: Type.String(),
        multiplier: Type.Number({ description: 'Earning multiplier, 1.5.' }),
      }),
    ),
    next: Nullable(
      Type.Object({
        name: Type.String(),
        threshold: Type.Integer({ description: 'In the unit of value.' }),
        missing: Type.Integer({ description: 'What is missing to it, in the unit of value.' }),
      }),
    ),
  },
  { title: 'TierStatus' },
);
