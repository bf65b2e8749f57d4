import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { dryRun } from '../baskets/basket-dry-run.js';
import { dryRunRecentPurchases } from '../baskets/dry-run-recent.js';
import {
  DryRunBodySchema,
  DryRunResponseSchema,
  RecentDryRunBodySchema,
  RecentDryRunResponseSchema,
} from '../wire/documents/dry-run.schemas.js';
import { merchantByName } from '../campaigns/rule.service.js';
import { answer } from '../wire/openapi.js';
import { apiErrors } from '../wire/schemas.js';

export const adminDryRunRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;

  app.post(
    '/merchants/:serviceUserName/dryRun',
    {
      schema: {
        tags: ['Operator: campaigns'],
        summary: 'Dry run: the rewards of a basket under campaigns and schemes that are not live yet',
        operationId: 'dryRunCampaigns',
        description:
          'The basket is a POS v3 basket as uploaded (JSON). Draft campaigns and schemes use the bodies of ' +
          'create; with includeLiveCampaigns (default true) the live ones take part too. Answers Rewards and ' +
          'LoyaltyInfo as a basket upload from the till `trackingUnitId` would (the same evaluation: groups from ' +
          'its sortiment, the consumer and coupon codes found as an upload finds them; drafts under CouponId / ' +
          'LoyaltyId -1, -2 ...), and why every campaign did or did not apply. `consumer` stands in for the ' +
          "basket's consumer. With `channel` checkout the basket is evaluated as an online order is priced: " +
          "campaigns only, without the schemes and the customer's points, with their uses of campaigns limited " +
          'per customer and their status tiers (docs/decisions.md, "The dry run on the channel checkout"). ' +
          'Nothing is stored.',
        params: Type.Object({ serviceUserName: Type.String() }),
        body: DryRunBodySchema,
        response: {
          200: answer(
            'The rewards the basket would get, and why each campaign applied or not.',
            DryRunResponseSchema,
          ),
          ...apiErrors({
            400: 'Body invalid: basket, draft definition or outlet, or consumer.points or schemes with the channel checkout (invalid_request; details.field names the field).',
            401: 'Authorization missing or wrong (unauthorized).',
            404: 'Merchant unknown (not_found).',
          }),
        },
      },
    },
    async (request) =>
      dryRun(app.services.campaigns, await merchantByName(db, request.params.serviceUserName), request.body),
  );

  app.post(
    '/merchants/:serviceUserName/dryRun/recent',
    {
      schema: {
        tags: ['Operator: campaigns'],
        summary:
          'Dry run over the recent baskets: in how many each campaign applies, and why not in the others',
        operationId: 'dryRunRecentBaskets',
        description:
          "The merchant's newest baskets (by their Timestamp, `limit` of them), each evaluated again as the dry run " +
          'evaluates one (from its till, with the consumer its upload identified and the card of its query), and ' +
          'its newest online orders (`limit` of them), each evaluated again as its pricing evaluates it (its lines ' +
          "as priced then, the channel checkout), under today's live campaigns with the drafts standing in " +
          '(`campaigns`, `schemes`, `replaces`, `includeLiveCampaigns` as in the dry run). Per campaign: the ' +
          'baskets and orders it applied in, its applications and discount in them, and why it did not in the ' +
          'others, grouped by reasonCode and blockedBy with the newest such basket or order; per loyalty scheme, ' +
          'the points it would earn the customers the baskets name. ' +
          "Budgets, and the customers' points, usages and tiers, are judged per basket and order as they are now. " +
          'Nothing is stored.',
        params: Type.Object({ serviceUserName: Type.String() }),
        body: RecentDryRunBodySchema,
        response: {
          200: answer('Per campaign, where it applied and why not.', RecentDryRunResponseSchema),
          ...apiErrors({
            400: 'Body invalid: limit out of range or a draft definition (invalid_request; details.field names the field).',
            401: 'Authorization missing or wrong (unauthorized).',
            404: 'Merchant unknown (not_found).',
          }),
        },
      },
    },
    async (request) => {
      const merchant = await merchantByName(db, request.params.serviceUserName);
      return dryRunRecentPurchases(app.services.campaigns, merchant, request.body, { subject: 'operator' });
    },
  );
};
