import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { type Static, Type } from 'typebox';
import type { Session } from '../portal-users/portal-auth.service.js';
import { type DashboardPeriod, dayCount, localDayOf } from '../reports/dashboard-period.store.js';
import { foldDashboard } from '../reports/dashboard-days.store.js';
import { dashboardDays, dashboardHours } from '../reports/dashboard.store.js';
import { topArticles, topCampaigns } from '../reports/dashboard-top.store.js';
import {
  undeliveredOrderReceiptMails,
  undeliveredReceiptMails,
} from '../reports/dashboard-receipt-mail.store.js';
import { dashboardOrders } from '../reports/dashboard-orders.store.js';
import { storedBalance } from '../reports/dashboard-balance.store.js';
import { AppError } from '../shared/errors.js';
import { currencyExponent, minorToMajorText } from '../shared/money.js';
import { answer, auth } from '../wire/openapi.js';
import { DashboardSchema, type Preset, PresetSchema } from './dashboard.schemas.js';
import { storedBalanceCsv } from './balance-csv.js';
import { portalErrors } from './schemas.js';
import { requireSession } from './session.js';
import { replicaLagSeconds } from '../store/replica-lag.js';
import { addDays, isCalendarDay, localInstantMs } from '../shared/time.js';
import { type ViewDeps, viewDeps } from './views.js';

const TAG = 'Portal: reports';
const MAX_DAYS = 366;

const DateText = (description: string) =>
  Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}$', description }));

export const DashboardQuery = Type.Object({
  preset: Type.Optional(
    Type.Union(PresetSchema.anyOf, {
      description:
        'today, yesterday, 7d or 30d (ending today), in the merchant’s time zone; the default when no day is given is today.',
    }),
  ),
  from: DateText('First day (YYYY-MM-DD, in the merchant’s time zone); default 29 days before `to`.'),
  to: DateText('Last day, inclusive; default today.'),
  outletId: Type.Optional(Type.Integer({ minimum: 1, description: 'Only this outlet.' })),
});

/** Per preset: days back of its first day and of its last day. */
const PRESET_DAYS: Record<Preset, [number, number]> = {
  today: [0, 0],
  yesterday: [1, 1],
  '7d': [6, 0],
  '30d': [29, 0],
};

export type DashboardQuery = Static<typeof DashboardQuery>;
type Query = DashboardQuery;
export type Dashboard = Static<typeof DashboardSchema>;

function checkedDay(text: string, field: string): string {
  if (!isCalendarDay(text)) {
    throw new AppError('refused', `${field} is not a date.`, { details: { field } });
  }
  return text;
}

/** The days asked for, checked: a preset, or at most 366 days with `from` not after `to`. */
export function dashboardRange(
  query: Query,
  timeZone: string,
  nowMs: number,
): { preset: Preset | null; from: string; to: string } {
  const today = localDayOf(nowMs, timeZone).day;
  const preset = query.preset ?? (query.from === undefined && query.to === undefined ? 'today' : null);
  if (preset !== null) {
    const [back, end] = PRESET_DAYS[preset];
    return { preset, from: addDays(today, -back), to: addDays(today, -end) };
  }
  const to = checkedDay(query.to ?? today, 'to');
  const from = checkedDay(query.from ?? addDays(to, -29), 'from');
  if (from > to) throw new AppError('refused', 'from is after to.', { details: { field: 'from' } });
  if (dayCount(from, to) > MAX_DAYS) {
    throw new AppError('refused', `The range spans more than ${MAX_DAYS} days.`, {
      details: { field: 'from' },
    });
  }
  return { preset: null, from, to };
}

/**
 * The period and the one before it of as many days; when the period ends today, the one before is
 * cut at the same time of day on its last day, so that a morning is compared with a morning.
 */
export function dashboardPeriods(
  range: { from: string; to: string },
  base: { merchantId: number; timeZone: string; outletId: number | null },
  nowMs: number,
): { current: DashboardPeriod; previous: DashboardPeriod; previousCut: boolean } {
  const tz = base.timeZone;
  const n = dayCount(range.from, range.to);
  const current: DashboardPeriod = {
    ...base,
    ...range,
    startMs: localInstantMs(range.from, 0, tz),
    endMs: localInstantMs(addDays(range.to, 1), 0, tz),
  };
  const from = addDays(range.from, -n);
  const to = addDays(range.to, -n);
  const now = localDayOf(nowMs, tz);
  const cut = now.day === range.to;
  const previous: DashboardPeriod = {
    ...base,
    from,
    to,
    startMs: localInstantMs(from, 0, tz),
    endMs: cut ? localInstantMs(to, now.msOfDay, tz) : localInstantMs(addDays(to, 1), 0, tz),
  };
  return { current, previous, previousCut: cut };
}

/** The period's checkout orders: their figures, and their receipt mails that did not arrive. */
async function ordersOf(
  db: Parameters<typeof dashboardDays>[0],
  current: DashboardPeriod,
  previous: DashboardPeriod,
) {
  const [figures, undelivered] = await Promise.all([
    dashboardOrders(db, current, previous),
    undeliveredOrderReceiptMails(db, current),
  ]);
  return { ...figures, undeliveredReceiptMails: undelivered };
}

export async function loadDashboard(
  db: Parameters<typeof dashboardDays>[0],
  s: Pick<Session, 'merchantId' | 'timeZone' | 'currency'>,
  query: Query,
  nowMs: number,
): Promise<Omit<Dashboard, 'replicaLagSeconds'>> {
  const range = dashboardRange(query, s.timeZone, nowMs);
  const base = { merchantId: s.merchantId, timeZone: s.timeZone, outletId: query.outletId ?? null };
  const { current, previous, previousCut } = dashboardPeriods(range, base, nowMs);
  const [now, before, hours, articles, campaigns, undelivered, orders, balance] = await Promise.all([
    dashboardDays(db, current),
    dashboardDays(db, previous),
    dashboardHours(db, current),
    topArticles(db, current),
    topCampaigns(db, current),
    undeliveredReceiptMails(db, current),
    // Checkout orders have no outlet: with one chosen, the figures are that outlet's alone.
    base.outletId === null ? ordersOf(db, current, previous) : null,
    // The customers' balances are the merchant's, not an outlet's.
    base.outletId === null ? storedBalance(db, current, s.currency) : null,
  ]);
  return {
    currency: s.currency,
    timeZone: s.timeZone,
    ...range,
    totals: now.totals,
    previous: {
      from: previous.from,
      to: previous.to,
      until: previousCut ? new Date(previous.endMs).toISOString() : null,
      totals: before.totals,
    },
    days: now.days,
    hours,
    topArticlesByRevenue: articles.byRevenue,
    topArticlesByCount: articles.byCount,
    ...campaigns,
    undeliveredReceiptMails: undelivered,
    orders,
    // The answer's days say what was held; the moves of each day are in the stored balance's CSV.
    storedBalance: balance && {
      ...balance,
      days: balance.days.map(({ day, closingMinor }) => ({ day, closingMinor })),
    },
  };
}

const CSV_COLUMNS = [
  'baskets',
  'openBaskets',
  'salesMinor',
  'rewardsMinor',
  'returns',
  'returnsMinor',
  'revenueMinor',
  'pointsEarned',
  'pointsRedeemed',
  'withTotalValue',
  'totalValueDiffers',
] as const;

/** One line per day and outlet, the dashboard's figures; amounts in major units with a dot. */
export function dashboardCsv(d: Pick<Dashboard, 'currency' | 'days'>): string {
  const exponent = currencyExponent(d.currency);
  const header = [
    'day',
    'outletId',
    ...CSV_COLUMNS.map((c) => (c === 'returnsMinor' ? 'returnsValue' : c.replace(/Minor$/, ''))),
    'currency',
  ];
  const lines = [header.join(',')];
  for (const r of d.days) {
    const cells = CSV_COLUMNS.map((c) =>
      c.endsWith('Minor') ? minorToMajorText(r[c], exponent) : String(r[c]),
    );
    lines.push([r.day, r.outletId ?? '', ...cells, d.currency].join(','));
  }
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * The dashboard's figures for a period: the page and the JSON API answer with this. The figures
 * decide no money: a replica serves them when there is one (DATABASE_READ_URL).
 */
export async function dashboardView(deps: ViewDeps, s: Session, query: Static<typeof DashboardQuery>) {
  const { database } = deps;
  // The changes the tills made since the last view, added to the figures kept per day first
  // (docs/decisions.md, "Dashboard figures kept per day"): a write, so on the primary.
  await foldDashboard(database, s.merchantId);
  const [d, replicaLag] = await Promise.all([
    loadDashboard(database.read, s, query, deps.clock.nowMs()),
    replicaLagSeconds(database),
  ]);
  return { ...d, replicaLagSeconds: replicaLag };
}

const BAD_QUERY = 'Query invalid: a date, or a range over 366 days (invalid_request).';

const CSV_ANSWER = {
  description: 'CSV, a header line first.',
  content: { 'text/csv': { schema: Type.String() } },
};

/** The days a CSV's query asks for, checked, and the period they make (an outlet's when given). */
function periodOf(s: Session, query: Query, nowMs: number) {
  const range = dashboardRange(query, s.timeZone, nowMs);
  const base = { merchantId: s.merchantId, timeZone: s.timeZone, outletId: query.outletId ?? null };
  return { range, current: dashboardPeriods(range, base, nowMs).current };
}

export const portalDashboardRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // The figures decide no money: a replica serves them when there is one (DATABASE_READ_URL).
  const database = app.ctx.database;
  const db = database.read;
  const deps = viewDeps(app);
  const figures = (s: ReturnType<typeof requireSession>, query: Static<typeof DashboardQuery>) =>
    dashboardView(deps, s, query);

  app.get(
    '/dashboard',
    {
      schema: {
        tags: [TAG],
        summary:
          "Sales, rewards, returns and revenue of the granted baskets, open baskets, points, by day and outlet and by hour; top articles and campaigns; receipt mails not delivered; checkout orders by shop; the customers' stored balance; the previous period",
        operationId: 'getPortalDashboard',
        description:
          'Days are those of the merchant’s time zone; at most 366 of them. Sales come from the positions of the granted baskets, whether or not the till sent TotalValue.',
        security: auth.portal,
        querystring: DashboardQuery,
        response: {
          200: answer('The figures of the range.', DashboardSchema),
          ...portalErrors({ 400: BAD_QUERY }),
        },
      },
    },
    async (request) => figures(requireSession(request), request.query),
  );

  app.get(
    '/dashboard.csv',
    {
      schema: {
        tags: [TAG],
        summary: 'The dashboard’s daily figures as CSV',
        operationId: 'downloadPortalDashboard',
        description:
          'One line per day and outlet, the columns of the dashboard’s days; amounts in major units with a dot.',
        security: auth.portal,
        querystring: DashboardQuery,
        response: {
          200: CSV_ANSWER,
          ...portalErrors({ 400: BAD_QUERY }),
        },
      },
    },
    async (request, reply) => {
      // Only the daily figures: the CSV has no use for the hours, the top lists or the period before.
      const s = requireSession(request);
      const { range, current } = periodOf(s, request.query, app.ctx.clock.nowMs());
      await foldDashboard(database, s.merchantId);
      const d = { ...range, currency: s.currency, days: (await dashboardDays(db, current)).days };
      reply.header('content-disposition', `attachment; filename="dashboard-${d.from}-${d.to}.csv"`);
      return reply.type('text/csv; charset=utf-8').send(dashboardCsv(d));
    },
  );

  app.get(
    '/storedBalance.csv',
    {
      schema: {
        tags: [TAG],
        summary: "The customers' stored balance day by day as CSV",
        operationId: 'downloadPortalStoredBalance',
        description:
          "One line per day of the range: held at its start, loaded and paid at the tills, topped up, charged for and refunded to checkout orders, corrections, held at its end; amounts in major units with a dot. The merchant's, not an outlet's. Only the header for a merchant whose customers never held money.",
        security: auth.portal,
        querystring: Type.Omit(DashboardQuery, ['outletId']),
        response: {
          200: CSV_ANSWER,
          ...portalErrors({ 400: BAD_QUERY }),
        },
      },
    },
    async (request, reply) => {
      const s = requireSession(request);
      const { range, current } = periodOf(s, request.query, app.ctx.clock.nowMs());
      const balance = await storedBalance(db, current, s.currency);
      reply.header(
        'content-disposition',
        `attachment; filename="stored-balance-${range.from}-${range.to}.csv"`,
      );
      return reply.type('text/csv; charset=utf-8').send(storedBalanceCsv(balance, s.currency));
    },
  );
};
