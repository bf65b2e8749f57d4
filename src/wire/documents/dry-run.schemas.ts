import { Type } from 'typebox';
import { CampaignBodySchema, SchemeBodySchema } from '../../campaigns/rule.schemas.js';
import { BasketSchema, LoyaltyInfoSchema, RewardSchema } from './basket.schemas.js';

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
  outletId: Type.Optional(
    Type.Integer({
      description: 'Outlet of the basket; absent: no outlet (outlet-bound rules do not apply).',
    }),
  ),
  channel: Type.Optional(Type.Union([Type.Literal('pos'), Type.Literal('checkout')], { default: 'pos' })),
  consumer: Type.Optional(
    Type.Object(
      {
        points: Type.Optional(PointsByRule),
        usages: Type.Optional(PointsByRule),
      },
      {
        description:
          'An identified consumer with committed points per scheme and granted usages per campaign; absent: anonymous.',
      },
    ),
  ),
  groups: Type.Optional(
    Type.Record(Type.String(), Type.Array(Type.String()), {
      description: 'Article groups (with their ancestors) per PLU, for group selectors; absent: no groups.',
    }),
  ),
});

export const ExplanationSchema = Type.Object({
  campaignId: Type.Union([Type.Integer(), Type.String()], { description: 'Live id, or "draft-N".' }),
  name: Type.String(),
  applied: Type.Boolean(),
  applications: Type.Integer(),
  reason: Type.String(),
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
