import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { readRule } from '../campaigns/rule-versions.store.js';
import { merchantById } from '../campaigns/rule.service.js';
import { dryRunRecentPurchases } from '../baskets/dry-run-recent.js';
import { RecentDryRunBodySchema, RecentDryRunResponseSchema } from '../wire/documents/dry-run.schemas.js';
import { recentBaskets } from '../reports/recent-baskets.store.js';
import {
  type CampaignOrdersDay,
  type CampaignStatsDay,
  type RuleStatsRange,
  campaignBaskets,
  campaignOrderStats,
  campaignOrders,
  campaignStats,
  schemeStats,
} from '../reports/rule-stats.store.js';
import { AppError } from '../shared/errors.js';
import { pageOf, pageRequest } from '../shared/paging.js';
import { currencyExponent, minorToMajor } from '../shared/money.js';
import { zoneOffsetMinutes } from '../shared/time.js';
import { answer, auth } from '../wire/openapi.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import { portalErrors } from './schemas.js';
import { requireSession } from './session.js';
import type { Session } from '../portal-users/portal-auth.service.js';
import { type ViewDeps, viewDeps } from './views.js';

const TAG = 'Portal: campaigns';
const DAY_MS = 86_400_000;

const StatsQuery = Type.Object({
  days: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 366,
      default: 30,
      description: "Days up to today (the merchant's time zone), today included; default 30.",
    }),
  ),
});
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const Range = { from: Type.String({ format: 'date' }), to: Type.String({ format: 'date' }) };

const CampaignStatsSchema = Type.Object(
  {
    ...Range,
    baskets: Type.Integer({ description: 'Granted baskets the campaign rewarded.' }),
    orders: Type.Integer({
      description:
        'Online orders of the checkout interface the campaign gave a reward, by the day they were placed; an order ' +
        'refunded in whole counts nothing.',
    }),
    uses: Type.Integer({
      description:
        'Applications in the baskets, net of returns, and in the orders (three discounted cappuccinos: three).',
    }),
    cost: Type.Number({
      description:
        'Reward value booked by the grants and given to the orders, in major units of the currency.',
    }),
    costMinor: Type.Integer({ description: 'The same in minor units.' }),
    days: Type.Array(
      Type.Object({
        day: Type.String({ format: 'date' }),
        baskets: Type.Integer(),
        orders: Type.Integer(),
        uses: Type.Integer(),
        costMinor: Type.Integer(),
      }),
      { description: 'Days with at least one basket or order, oldest first.' },
    ),
  },
  { title: 'PortalCampaignStats' },
);

const SchemeStatsSchema = Type.Object(
  {
    ...Range,
    baskets: Type.Integer({ description: 'Granted baskets that earned or redeemed points of the scheme.' }),
    pointsEarned: Type.Integer(),
    pointsRedeemed: Type.Integer(),
    cost: Type.Number({
      description: "The scheme's rewards booked by the grants, in major units (money; points are apart).",
    }),
    costMinor: Type.Integer({ description: 'The same in minor units.' }),
    days: Type.Array(
      Type.Object({
        day: Type.String({ format: 'date' }),
        baskets: Type.Integer(),
        pointsEarned: Type.Integer(),
        pointsRedeemed: Type.Integer(),
        costMinor: Type.Integer(),
      }),
      { description: 'Days with at least one basket, oldest first.' },
    ),
  },
  { title: 'PortalSchemeStats' },
);

/** Today and `days - 1` days before it, in the time zone. */
function range(merchantId: number, timeZone: string, nowMs: number, days: number): RuleStatsRange {
  const localMs = nowMs + zoneOffsetMinutes(timeZone, nowMs) * 60_000;
  const to = new Date(localMs).toISOString().slice(0, 10);
  const from = new Date(localMs - (days - 1) * DAY_MS).toISOString().slice(0, 10);
  return { merchantId, timeZone, from, to };
}

const sum = <T>(rows: readonly T[], pick: (row: T) => number) => rows.reduce((a, r) => a + pick(r), 0);

/** A campaign's and a scheme's uses, cost and baskets over time, for their pages. */
export const portalRuleStatsRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.get(
    '/campaigns/:id/stats',
    {
      schema: {
        tags: [TAG],
        summary: "A campaign's baskets, online orders, uses and cost per day",
        operationId: 'getPortalCampaignStats',
        security: auth.portal,
        params: IdParams,
        querystring: StatsQuery,
        response: {
          200: answer('Totals over the range and one row per day with baskets.', CampaignStatsSchema),
          ...portalErrors({
            400: 'id or days invalid (invalid_request).',
            404: "Campaign unknown, or another merchant's (not_found).",
          }),
        },
      },
    },
    async (request) =>
      campaignStatsView(viewDeps(app), requireSession(request), request.params.id, request.query.days),
  );

  app.get(
    '/loyaltySchemes/:id/stats',
    {
      schema: {
        tags: [TAG],
        summary: "A loyalty scheme's baskets, points earned and redeemed, and rewards' value per day",
        operationId: 'getPortalSchemeStats',
        security: auth.portal,
        params: IdParams,
        querystring: StatsQuery,
        response: {
          200: answer('Totals over the range and one row per day with baskets.', SchemeStatsSchema),
          ...portalErrors({
            400: 'id or days invalid (invalid_request).',
            404: "Loyalty scheme unknown, or another merchant's (not_found).",
          }),
        },
      },
    },
    async (request) =>
      schemeStatsView(viewDeps(app), requireSession(request), request.params.id, request.query.days),
  );
};

/** The tills' days and the orders' days of a campaign as one row per day, oldest first. */
function mergeDays(baskets: readonly CampaignStatsDay[], orders: readonly CampaignOrdersDay[]) {
  const byDay = new Map<
    string,
    { day: string; baskets: number; orders: number; uses: number; costMinor: number }
  >();
  for (const d of baskets) byDay.set(d.day, { ...d, orders: 0 });
  for (const o of orders) {
    const d = byDay.get(o.day) ?? { day: o.day, baskets: 0, orders: 0, uses: 0, costMinor: 0 };
    byDay.set(o.day, { ...d, orders: o.orders, uses: d.uses + o.uses, costMinor: d.costMinor + o.costMinor });
  }
  return [...byDay.values()].sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
}

/**
 * Per campaign, the purchases it rewarded in the last 30 days (the campaigns list): the tills'
 * granted baskets and the online orders.
 */
export async function campaignPurchasesView(deps: ViewDeps, s: Session): Promise<Map<number, number>> {
  const r = range(s.merchantId, s.timeZone, deps.clock.nowMs(), 30);
  const baskets = await campaignBaskets(deps.db, r);
  for (const [id, orders] of await campaignOrders(deps.db, r))
    baskets.set(id, (baskets.get(id) ?? 0) + orders);
  return baskets;
}

export async function campaignStatsView(deps: ViewDeps, s: Session, id: number, daysBack?: number) {
  if (!(await readRule(deps.db, 'campaign', s.merchantId, id))) {
    throw new AppError('notFound', 'No campaign under this id.');
  }
  const r = range(s.merchantId, s.timeZone, deps.clock.nowMs(), daysBack ?? 30);
  const days = mergeDays(await campaignStats(deps.db, r, id), await campaignOrderStats(deps.db, r, id));
  const costMinor = sum(days, (d) => d.costMinor);
  return {
    from: r.from,
    to: r.to,
    baskets: sum(days, (d) => d.baskets),
    orders: sum(days, (d) => d.orders),
    uses: sum(days, (d) => d.uses),
    cost: minorToMajor(costMinor, currencyExponent(s.currency)),
    costMinor,
    days,
  };
}

/** A loyalty scheme's baskets, points earned and redeemed, and rewards' value per day. */
export async function schemeStatsView(deps: ViewDeps, s: Session, id: number, daysBack?: number) {
  if (!(await readRule(deps.db, 'scheme', s.merchantId, id))) {
    throw new AppError('notFound', 'No loyalty scheme under this id.');
  }
  const r = range(s.merchantId, s.timeZone, deps.clock.nowMs(), daysBack ?? 30);
  const days = await schemeStats(deps.db, r, id);
  const costMinor = sum(days, (d) => d.costMinor);
  return {
    from: r.from,
    to: r.to,
    baskets: sum(days, (d) => d.baskets),
    pointsEarned: sum(days, (d) => d.pointsEarned),
    pointsRedeemed: sum(days, (d) => d.pointsRedeemed),
    cost: minorToMajor(costMinor, currencyExponent(s.currency)),
    costMinor,
    days,
  };
}

/** The baskets the dry run can start from, newest first, a page at a time. */
export async function recentBasketsView(
  deps: ViewDeps,
  s: Session,
  query: { limit?: number; cursor?: string },
) {
  const page = pageRequest('portalDryRunBaskets', query, ['number', 'string', 'string']);
  const rows = await recentBaskets(deps.db, s.merchantId, page);
  return pageOf(
    'portalDryRunBaskets',
    rows,
    page.limit,
    (r) => r.key,
    ({ key: _key, profileId: _profileId, consumerToken: _card, giftCardId: _gift, ...r }) => r,
  );
}

const RecentBasketSchema = Type.Object(
  {
    trackingUnitId: Type.String(),
    instanceName: Type.String({ description: "The till's name." }),
    basketId: Type.String(),
    uploadedAt: Type.String({ format: 'date-time' }),
    body: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The basket as the till sent it (without its BillPdf), to send to the dry run.',
    }),
  },
  { title: 'PortalRecentBasket' },
);

/** The baskets the dry run can start from: the merchant's baskets newest first, with their tills. */
export const portalRecentBasketRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/dryRun/baskets',
    {
      schema: {
        tags: [TAG],
        summary: 'Recent baskets to start a dry run from',
        operationId: 'listPortalDryRunBaskets',
        security: auth.portal,
        querystring: Type.Object(pageQueryFields),
        response: {
          200: answer(
            'The baskets by their time, newest first.',
            PageOf(RecentBasketSchema, 'PortalRecentBasketPage'),
          ),
          ...portalErrors({ 400: pageErrors[400] }),
        },
      },
    },
    async (request) => recentBasketsView(viewDeps(app), requireSession(request), request.query),
  );

  // Reads only, like the dry run: staff may use it too, but it is a POST and carries the CSRF token.
  app.post(
    '/dryRun/recent',
    {
      schema: {
        tags: [TAG],
        summary:
          'Dry run over the recent baskets: in how many each campaign applies, and why not in the others',
        operationId: 'dryRunPortalRecentBaskets',
        description:
          "The merchant's newest baskets (by their Timestamp), each evaluated again as the dry run evaluates one " +
          '(from its till, with the consumer its upload identified), and as many of its newest online orders, each ' +
          "evaluated again as its pricing evaluates it (its lines as priced then), under today's live campaigns " +
          'with the drafts standing in. Per campaign: the baskets and orders it applied in, its discount in them, ' +
          'and why it did not in the others, grouped by reasonCode and blockedBy; per loyalty scheme, the points ' +
          'it would earn the customers the baskets name. ' +
          "Budgets, and the customers' points and usages, are judged per basket as they are now. " +
          'Nothing is stored.',
        security: auth.portalChange,
        body: RecentDryRunBodySchema,
        response: {
          200: answer('Per campaign, where it applied and why not.', RecentDryRunResponseSchema),
          ...portalErrors(
            {
              400: 'Body invalid: limit out of range or a draft definition (invalid_request; details.field names the field).',
            },
            { change: true },
          ),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const merchant = await merchantById(app.ctx.database.db, s.merchantId);
      return dryRunRecentPurchases(app.services.campaigns, merchant, request.body, {
        subject: `portal-user:${s.userId}`,
      });
    },
  );
};
