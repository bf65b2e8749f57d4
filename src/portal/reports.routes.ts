import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { Session } from '../accounts/portal-auth.service.js';
import { basketDetail, searchBaskets } from '../reports/basket-search.store.js';
import { type Dashboard, dashboard } from '../reports/dashboard.store.js';
import { AppError } from '../shared/errors.js';
import { currencyExponent, minorToMajorText } from '../shared/money.js';
import { answer, auth } from '../wire/openapi.js';
import { receiptUrlOf } from './receipt-link.js';
import { BasketDetailSchema, BasketListingSchema, DashboardSchema, portalErrors } from './schemas.js';
import { requireSession } from './session.js';

const TAG = 'Portal: reports';
const DAY_MS = 86_400_000;
const MAX_DAYS = 366;

const DateText = (description: string) =>
  Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description }));

export const DashboardQuery = Type.Object({
  from: DateText('First day (YYYY-MM-DD, in the merchant’s time zone); default 29 days before `to`.'),
  to: DateText('Last day, inclusive; default today.'),
  outletId: Type.Optional(Type.Integer({ minimum: 1, description: 'Only this outlet.' })),
});

/** Today in a time zone, YYYY-MM-DD. */
function localDay(nowMs: number, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(new Date(nowMs));
}

function dayMs(text: string, field: string): number {
  const ms = Date.parse(`${text}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== text) {
    throw new AppError('refused', `${field} is not a date.`, { details: { field } });
  }
  return ms;
}

/** The range asked for, checked: at most 366 days, `from` not after `to`. */
export function dashboardRange(
  query: { from?: string; to?: string },
  s: Session,
  nowMs: number,
): { from: string; to: string } {
  const to = query.to ?? localDay(nowMs, s.timeZone);
  const toMs = dayMs(to, 'to');
  const from = query.from ?? new Date(toMs - 29 * DAY_MS).toISOString().slice(0, 10);
  const fromMs = dayMs(from, 'from');
  if (fromMs > toMs) throw new AppError('refused', 'from is after to.', { details: { field: 'from' } });
  if ((toMs - fromMs) / DAY_MS >= MAX_DAYS) {
    throw new AppError('refused', `The range spans more than ${MAX_DAYS} days.`, {
      details: { field: 'from' },
    });
  }
  return { from, to };
}

export function dashboardCsv(d: Dashboard, currency: string): string {
  const lines = ['day,outletId,baskets,revenue,rewards,pointsEarned,pointsRedeemed,currency'];
  for (const r of d.days) {
    lines.push(
      [
        r.day,
        r.outletId ?? '',
        r.baskets,
        minorToMajorText(r.revenueMinor, currencyExponent(currency)),
        minorToMajorText(r.rewardsMinor, currencyExponent(currency)),
        r.pointsEarned,
        r.pointsRedeemed,
        currency,
      ].join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

export const portalReportRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;

  async function load(s: Session, query: { from?: string; to?: string; outletId?: number }) {
    const range = dashboardRange(query, s, app.ctx.clock.nowMs());
    const data = await dashboard(db, {
      merchantId: s.merchantId,
      timeZone: s.timeZone,
      ...range,
      outletId: query.outletId ?? null,
    });
    return { currency: s.currency, ...range, ...data };
  }

  app.get(
    '/dashboard',
    {
      schema: {
        tags: [TAG],
        summary: 'Per day and outlet: baskets, revenue, rewards, points; top campaigns by use and cost',
        operationId: 'getPortalDashboard',
        description: 'Days are those of the merchant’s time zone; at most 366 of them.',
        security: auth.portal,
        querystring: DashboardQuery,
        response: {
          200: answer('The figures of the range.', DashboardSchema),
          ...portalErrors({ 400: 'Query invalid: a date, or a range over 366 days (invalid_request).' }),
        },
      },
    },
    async (request) => load(requireSession(request), request.query),
  );

  app.get(
    '/dashboard.csv',
    {
      schema: {
        tags: [TAG],
        summary: 'The dashboard’s daily figures as CSV',
        operationId: 'downloadPortalDashboard',
        description: 'One line per day and outlet; amounts in major units with a dot.',
        security: auth.portal,
        querystring: DashboardQuery,
        response: {
          200: {
            description: 'CSV, a header line first.',
            content: { 'text/csv': { schema: Type.String() } },
          },
          ...portalErrors({ 400: 'Query invalid: a date, or a range over 366 days (invalid_request).' }),
        },
      },
    },
    async (request, reply) => {
      const s = requireSession(request);
      const d = await load(s, request.query);
      reply.header('content-disposition', `attachment; filename="dashboard-${d.from}-${d.to}.csv"`);
      return reply.type('text/csv; charset=utf-8').send(dashboardCsv(d, s.currency));
    },
  );

  app.get(
    '/baskets',
    {
      schema: {
        tags: [TAG],
        summary: 'Search baskets by time, outlet, terminal and card, newest first',
        operationId: 'searchPortalBaskets',
        security: auth.portal,
        querystring: Type.Object({
          from: Type.Optional(Type.String({ format: 'date-time', description: 'Basket time at or after.' })),
          to: Type.Optional(Type.String({ format: 'date-time', description: 'Basket time before.' })),
          outletId: Type.Optional(Type.Integer({ minimum: 1 })),
          trackingUnitId: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
          card: Type.Optional(
            Type.String({ minLength: 1, maxLength: 200, description: 'Customer card or gift card id.' }),
          ),
          limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
        }),
        response: {
          200: answer('The baskets found, newest first.', Type.Array(BasketListingSchema)),
          ...portalErrors({ 400: 'Query invalid (invalid_request).' }),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const q = request.query;
      const time = (t: string | undefined) => (t === undefined ? null : Date.parse(t));
      return searchBaskets(db, {
        merchantId: s.merchantId,
        fromMs: time(q.from),
        toMs: time(q.to),
        outletId: q.outletId ?? null,
        trackingUnitId: q.trackingUnitId ?? null,
        card: q.card ?? null,
        limit: q.limit ?? 100,
      });
    },
  );

  app.get(
    '/baskets/:trackingUnitId/:basketId',
    {
      schema: {
        tags: [TAG],
        summary: 'One basket with its rewards, points, returns and receipt',
        operationId: 'getPortalBasket',
        security: auth.portal,
        params: Type.Object({
          trackingUnitId: Type.String({ maxLength: 100 }),
          basketId: Type.String({ maxLength: 200 }),
        }),
        response: {
          200: answer('The basket.', BasketDetailSchema),
          ...portalErrors({ 404: "Basket unknown, or another merchant's (not_found)." }),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const { trackingUnitId, basketId } = request.params;
      const b = await basketDetail(db, s.merchantId, trackingUnitId, basketId);
      if (!b) throw new AppError('notFound', 'No basket under this id.');
      return { ...b, receiptUrl: await receiptUrlOf(db, s.merchantId, trackingUnitId, basketId) };
    },
  );
};
