import { expect } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { type TestApp, type Terminal, posCall } from '../support/harness.js';

/**
 * Weeks of a café's trade through the real POS interface (upload, grant, return over app.inject),
 * with every figure a till could know written down as it happens, so that the dashboard can be
 * checked against sums computed here, independently of the reports.
 */

const TZ = 'Europe/Berlin';
const DAY_MS = 86_400_000;

/** The menu: unit prices in cents; the beans are sold by weight (kg). */
const MENU = [
  { plu: '1001', name: 'Cappuccino', cents: 320, kg: false },
  { plu: '2001', name: 'Croissant', cents: 280, kg: false },
  { plu: '3001', name: 'Cheesecake', cents: 450, kg: false },
  { plu: '4001', name: 'Coffee beans', cents: 2490, kg: true },
] as const;

export interface Sold {
  basketId: string;
  till: Till;
  outletId: number;
  atMs: number;
  granted: boolean;
  /** Sum of price × amount per position, rounded half up to the cent. */
  grossCents: number;
  rewardsCents: number;
  totalValueCents: number | null;
  earned: number;
  spent: number;
  positions: { id: number; plu: string | null; thousandths: number; lineCents: number; unitCents: number }[];
}

export interface Returned {
  basketId: string;
  outletId: number;
  atMs: number;
  grossCents: number;
  refundedCents: number;
}

export interface Till {
  outletId: number;
  pos: Terminal['pos'];
}

/** A second (third) outlet of the merchant with a registered, activated till. */
export async function addTill(
  t: TestApp,
  term: Terminal,
  name: string,
): Promise<Till & { trackingUnitId: string }> {
  const o = await t.app.inject({
    method: 'POST',
    url: `/api/pos/v3/merchants/${encodeURIComponent(term.serviceUserName)}/outlets?brandId=${term.brandId}`,
    headers: { devkey: term.devKey, accept: 'application/json', 'content-type': 'application/json' },
    payload: { Name: name },
  });
  const outletId = (o.json() as { Id: number }).Id;
  const r = await t.app.inject({
    method: 'GET',
    url: `/api/pos/v3/trackingUnits?serviceUserName=${encodeURIComponent(term.serviceUserName)}&outletId=${outletId}&instanceName=${encodeURIComponent(`Till ${name}`)}`,
    headers: { devkey: term.devKey, accept: 'application/json' },
  });
  const unit = r.json() as { trackingUnitId: string; checksumSecret: string };
  expect((await t.admin('POST', `/trackingUnits/${unit.trackingUnitId}/activate`)).statusCode).toBe(200);
  const auth = { devKey: term.devKey, ...unit };
  return {
    outletId,
    trackingUnitId: unit.trackingUnitId,
    pos: (method, path, request) => posCall(t, auth, method, path, request),
  };
}

/** A small deterministic random source (the same trade on every run). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

function ok(res: LightMyRequestResponse): unknown {
  expect(res.statusCode, res.body).toBe(200);
  return res.json();
}

const cents = (major: number) => Math.round(major * 100);

/**
 * Trade from `startMs` (a local midnight) over `days` days on every till, in time order: baskets
 * with and without TotalValue (some with a wrong one), with and without a card, some never
 * granted, some granted without the rewards redeemed, and returns one to three days later.
 */
export async function trade(
  t: TestApp,
  tills: Till[],
  cards: string[],
  startMs: number,
  days: number,
): Promise<{ sold: Sold[]; returned: Returned[] }> {
  const rnd = random(42);
  type Event = { atMs: number; run: () => Promise<void> };
  const events: Event[] = [];
  const sold: Sold[] = [];
  const returned: Returned[] = [];
  let n = 0;
  for (let day = 0; day < days; day += 1) {
    for (const till of tills) {
      const baskets = 3 + Math.floor(rnd() * 4);
      for (let b = 0; b < baskets; b += 1) {
        const atMs =
          startMs + day * DAY_MS + (7 + Math.floor(rnd() * 12)) * 3_600_000 + Math.floor(rnd() * 3600) * 1000;
        const basketId = `bill-${(n += 1)}`;
        const lines = 1 + Math.floor(rnd() * 3);
        const positions: Sold['positions'] = [];
        const body: Record<string, unknown>[] = [];
        for (let i = 0; i < lines; i += 1) {
          const item = MENU[Math.floor(rnd() * MENU.length)] ?? MENU[0];
          const thousandths = item.kg
            ? 250 * (1 + Math.floor(rnd() * 3))
            : 1000 * (1 + Math.floor(rnd() * 3));
          const noPlu = rnd() < 0.05;
          const lineCents = Math.floor((item.cents * thousandths + 500) / 1000);
          positions.push({
            id: i + 1,
            plu: noPlu ? null : item.plu,
            thousandths,
            lineCents,
            unitCents: item.cents,
          });
          body.push({
            PositionId: i + 1,
            ...(noPlu ? {} : { ProductId: item.plu }),
            ProductName: item.name,
            Unit: item.kg ? 1 : 0,
            Amount: thousandths / 1000,
            CurrentGrossPrice: item.cents / 100,
          });
        }
        const grossCents = positions.reduce((s, p) => s + p.lineCents, 0);
        const withTotal = rnd();
        const totalValueCents = withTotal < 0.4 ? null : withTotal < 0.9 ? grossCents : grossCents + 50;
        const card = rnd() < 0.5 ? cards[Math.floor(rnd() * cards.length)] : undefined;
        const granted = rnd() >= 0.1;
        const redeemedInPos = rnd() >= 0.1;
        const returnKind = granted ? rnd() : 1;
        const s: Sold = {
          basketId,
          till,
          outletId: till.outletId,
          atMs,
          granted,
          grossCents,
          rewardsCents: 0,
          totalValueCents,
          earned: 0,
          spent: 0,
          positions,
        };
        sold.push(s);
        events.push({
          atMs,
          run: async () => {
            ok(
              await till.pos('POST', `/baskets/${basketId}`, {
                body: {
                  Timestamp: new Date(atMs).toISOString().replace('Z', '+00:00'),
                  HasDiscounts: false,
                  CurrencyISO: 'EUR',
                  ...(totalValueCents === null ? {} : { TotalValue: totalValueCents / 100 }),
                  Positions: body,
                },
                ...(card ? { query: { consumerIdentToken: card } } : {}),
              }),
            );
            if (!granted) return;
            const g = ok(
              await till.pos('POST', `/baskets/${basketId}/grant`, {
                sign: basketId,
                query: { redeemedInPos: String(redeemedInPos) },
              }),
            ) as {
              Rewards: { GrossRewardValue: number }[];
              LoyaltyInfo: {
                Details: {
                  PreviousPoints: number;
                  NewPoints: number;
                  PointsInScheme: number;
                  GrossRewardValue: number;
                }[];
              }[];
            };
            s.rewardsCents = g.Rewards.reduce((sum, r) => sum + cents(r.GrossRewardValue), 0);
            for (const l of g.LoyaltyInfo) {
              for (const d of l.Details) {
                const spent = d.GrossRewardValue > 0 ? d.PointsInScheme : 0;
                s.spent += spent;
                s.earned += d.NewPoints - d.PreviousPoints + spent;
              }
            }
          },
        });
        if (returnKind < 0.15) {
          // A return 1 to 3 days later: the whole basket, or one piece of its first position.
          const whole = returnKind < 0.07;
          const first = positions[0];
          if (!first) continue;
          const back = whole
            ? positions.map((p) => ({ PositionId: p.id, Amount: p.thousandths / 1000 }))
            : [
                {
                  PositionId: first.id,
                  Amount:
                    first.thousandths >= 1000 && first.thousandths % 1000 === 0
                      ? 1
                      : first.thousandths / 1000,
                },
              ];
          const grossBack = whole
            ? grossCents
            : first.thousandths >= 1000 && first.thousandths % 1000 === 0
              ? first.unitCents
              : first.lineCents;
          const returnAt = atMs + (1 + Math.floor(rnd() * 3)) * DAY_MS;
          events.push({
            atMs: returnAt,
            run: async () => {
              const returnId = `ret-${basketId}`;
              const r = ok(
                await till.pos('POST', `/baskets/${basketId}/return`, {
                  body: { ReturnId: returnId, Positions: back },
                  sign: `${basketId}${returnId}`,
                }),
              ) as { RefundedRewardValue: number };
              returned.push({
                basketId,
                outletId: till.outletId,
                atMs: returnAt,
                grossCents: grossBack,
                refundedCents: cents(r.RefundedRewardValue),
              });
            },
          });
        }
      }
    }
  }
  events.sort((a, b) => a.atMs - b.atMs);
  for (const e of events) {
    t.clock.ms = e.atMs;
    await e.run();
  }
  return { sold, returned };
}

/** The local day (YYYY-MM-DD) and hour of an instant in the café's time zone. */
export function local(ms: number): { day: string; hour: number } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: TZ,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(ms));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return { day: `${get('year')}-${get('month')}-${get('day')}`, hour: Number(get('hour')) };
}
