import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type TestApp,
  type Terminal,
  databases,
  setupTerminal,
  sortimentIdOf,
  startApp,
} from '../support/harness.js';

/**
 * The dry run is the till: for the same basket, the campaign editor's dry run and a real upload
 * of the till answer the same Rewards and LoyaltyInfo, whatever the campaigns (product,
 * quantity, combination, bill, loyalty; on articles and on groups of the till's sortiment; with
 * schedules, validity, coupon codes, consumer conditions and usage limits) and the consumer.
 */

interface Answer {
  Rewards: Record<string, unknown>[];
  LoyaltyInfo: Record<string, unknown>[];
  explanations?: { campaignId: number | string; reason: string; applied: boolean }[];
}

const PLUS = ['1001', '1002', '2001', '2002', '3001', '9999'];
const GROUPS = ['DRINKS', 'COFFEE', 'PASTRY', 'NOPE'];
const CARDS = ['DRY-CARD-1', 'DRY-CARD-2'];
/** Monday 2 March 2026, 00:00 UTC: baskets fall in the week after it. */
const WEEK_START_MS = Date.UTC(2026, 2, 2);

const selector = fc.oneof(
  fc.constantFrom(...PLUS).map((plu) => ({ plu })),
  fc.constantFrom(...GROUPS).map((group) => ({ group })),
);
const cents = (min: number, max: number) => fc.integer({ min, max }).map((c) => c / 100);
const productDiscount = fc.oneof(
  fc.integer({ min: 1, max: 100 }).map((percent) => ({ percent })),
  cents(10, 300).map((amount) => ({ amount })),
  cents(0, 300).map((price) => ({ price })),
);
const hhmm = (minute: number) =>
  `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
const schedule = fc.oneof(
  fc.constant([]),
  fc.array(
    fc
      .record({
        days: fc.uniqueArray(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 7 }),
        from: fc.integer({ min: 0, max: 46 }),
        length: fc.integer({ min: 1, max: 24 }),
      })
      .map((w) => ({
        days: w.days,
        from: hhmm(w.from * 30),
        to: hhmm(Math.min(48, w.from + w.length) * 30),
      })),
    { minLength: 1, maxLength: 2 },
  ),
);
const isoDay = (dayOffset: number) =>
  new Date(WEEK_START_MS + dayOffset * 86_400_000).toISOString().slice(0, 10);
const common = fc.record({
  maxApplications: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
  couponCode: fc.option(fc.constant('SPRING'), { nil: null, freq: 4 }),
  requiresConsumer: fc.boolean(),
  schedule,
  validity: fc.record({
    from: fc.option(fc.integer({ min: 0, max: 4 }), { nil: null, freq: 3 }),
    days: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null, freq: 3 }),
  }),
  usageLimitPerConsumer: fc.option(fc.integer({ min: 1, max: 2 }), { nil: null, freq: 3 }),
  priority: fc.integer({ min: 0, max: 2 }),
  outletBound: fc.boolean(),
});

type Common = typeof common extends fc.Arbitrary<infer T> ? T : never;

const campaign = fc.tuple(
  common,
  fc.oneof(
    fc.record({
      type: fc.constant('product'),
      discount: productDiscount,
      products: fc.array(selector, { maxLength: 2 }),
    }),
    fc.record({
      type: fc.constant('quantity'),
      discount: productDiscount,
      products: fc.array(selector, { maxLength: 2 }),
      buy: fc.integer({ min: 1, max: 3 }),
      get: fc.integer({ min: 1, max: 2 }),
    }),
    fc.record({
      type: fc.constant('combination'),
      discount: productDiscount,
      combination: fc.array(
        fc.tuple(selector, fc.integer({ min: 1, max: 2 })).map(([s, quantity]) => ({ ...s, quantity })),
        { minLength: 1, maxLength: 3 },
      ),
    }),
    fc.record({
      type: fc.constant('bill'),
      discount: fc.oneof(
        fc.integer({ min: 1, max: 50 }).map((percent) => ({ percent })),
        cents(10, 500).map((amount) => ({ amount })),
      ),
      minTotal: cents(0, 2000),
      exclusive: fc.boolean(),
    }),
  ),
);

const scheme = fc.record({
  earn: fc.oneof(
    cents(100, 500).map((amount) => [{ per: 'amount', amount, points: 1 }]),
    fc
      .tuple(fc.array(selector, { maxLength: 2 }), fc.integer({ min: 1, max: 3 }))
      .map(([products, points]) => [{ per: 'unit', products, points }]),
  ),
  reward: fc.oneof(
    fc.constant(null),
    fc
      .tuple(fc.integer({ min: 2, max: 12 }), cents(50, 300))
      .map(([threshold, amount]) => ({ threshold, type: 'bill', discount: { amount } })),
    fc
      .tuple(fc.integer({ min: 2, max: 12 }), fc.array(selector, { minLength: 1, maxLength: 2 }))
      .map(([threshold, products]) => ({ threshold, type: 'product', products, discount: { percent: 100 } })),
  ),
  outletBound: fc.boolean(),
});

const position = fc.record({
  plu: fc.option(fc.constantFrom(...PLUS), { nil: null, freq: 8 }),
  amount: fc.integer({ min: 1, max: 4 }),
  price: cents(50, 600),
  hasDiscounts: fc.integer({ min: 0, max: 9 }).map((x) => x < 2),
});

const basket = fc.record({
  /** Minutes after the week's start (UTC). */
  minute: fc.integer({ min: 0, max: 8 * 1440 }),
  offset: fc.constantFrom('+01:00', '-05:00', 'Z', ''),
  positions: fc.array(position, { minLength: 1, maxLength: 5 }),
  hasDiscounts: fc.integer({ min: 0, max: 9 }).map((x) => x < 1),
  coupon: fc.boolean(),
  /** -1: anonymous; else the card, in ContextIdentifiers or as consumerIdentToken. */
  card: fc.integer({ min: -1, max: CARDS.length - 1 }),
  cardAsQuery: fc.boolean(),
  grant: fc.boolean(),
});
type GenBasket = typeof basket extends fc.Arbitrary<infer T> ? T : never;

function basketBody(b: GenBasket): { body: Record<string, unknown>; query: Record<string, string> } {
  const at = new Date(WEEK_START_MS + b.minute * 60_000);
  let timestamp: string;
  if (b.offset === 'Z') timestamp = at.toISOString();
  else if (b.offset === '') timestamp = at.toISOString().slice(0, 19);
  else {
    const sign = b.offset.startsWith('-') ? -1 : 1;
    const minutes = sign * (Number(b.offset.slice(1, 3)) * 60 + Number(b.offset.slice(4)));
    timestamp = new Date(at.getTime() + minutes * 60_000).toISOString().slice(0, 19) + b.offset;
  }
  const context: string[] = [];
  if (b.coupon) context.push('SPRING');
  const query: Record<string, string> = {};
  const card = b.card >= 0 ? CARDS[b.card] : undefined;
  if (card !== undefined) {
    if (b.cardAsQuery) query.consumerIdentToken = card;
    else context.push(card);
  }
  return {
    body: {
      Timestamp: timestamp,
      HasDiscounts: b.hasDiscounts,
      ...(context.length > 0 ? { ContextIdentifiers: context } : {}),
      Positions: b.positions.map((p, i) => ({
        PositionId: i + 1,
        ...(p.plu === null ? {} : { ProductId: p.plu }),
        Unit: 0,
        Amount: p.amount,
        CurrentGrossPrice: p.price,
        HasDiscounts: p.hasDiscounts,
      })),
    },
    query,
  };
}

function campaignBody([c, typed]: [Common, Record<string, unknown>], n: number, outletId: number) {
  const { outletBound, validity, ...rest } = c;
  const from = validity.from ?? 0;
  return {
    name: `Campaign ${n} (${String(typed.type)})`,
    ...typed,
    ...rest,
    ...(validity.from === null ? {} : { validFrom: `${isoDay(from)}T06:00:00` }),
    ...(validity.days === null ? {} : { validTo: `${isoDay(from + validity.days)}T18:00:00` }),
    ...(outletBound ? { outletIds: [outletId] } : {}),
  };
}

describe.each(databases)('the dry run is the till on %s', (kind) => {
  let t: TestApp;
  let n = 0;
  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(() => t?.close());

  const ok = (res: { statusCode: number; body: string }, what: string) => {
    if (res.statusCode >= 300) throw new Error(`${what}: ${res.statusCode} ${res.body}`);
  };

  /** A merchant whose till files its articles in groups: COFFEE under DRINKS, PASTRY; 2002 in none. */
  async function cafe(timeZone = 'Europe/Berlin'): Promise<Terminal> {
    const term = await setupTerminal(t, { timeZone });
    const sid = await sortimentIdOf(term, 'ERP');
    for (const [path, body] of [
      ['/group/DRINKS', { Id: 'DRINKS' }],
      ['/group/COFFEE', { Id: 'COFFEE', UpGroupId: 'DRINKS' }],
      ['/group/PASTRY', { Id: 'PASTRY' }],
      ['/article/1001', { PLU: '1001', Name: [{ lang: 'en', val: 'Cappuccino' }], GroupId: 'COFFEE' }],
      ['/article/1002', { PLU: '1002', Name: [{ lang: 'en', val: 'Lemonade' }], GroupId: 'DRINKS' }],
      ['/article/2001', { PLU: '2001', Name: [{ lang: 'en', val: 'Croissant' }], GroupId: 'PASTRY' }],
      ['/article/2002', { PLU: '2002', Name: [{ lang: 'en', val: 'Newspaper' }] }],
      ['/article/3001', { PLU: '3001', Name: [{ lang: 'en', val: 'Muffin' }], GroupId: 'PASTRY' }],
    ] as const) {
      ok(await term.pos('POST', `/sortiments/${sid}${path}`, { body }), path);
    }
    ok(
      await term.pos('POST', '/trackingUnits', {
        query: {
          serviceUserName: term.serviceUserName,
          outletId: String(term.outletId),
          instanceName: 'Till 1',
          sortimentId: sid,
        },
      }),
      'sortiment of the till',
    );
    return term;
  }

  async function consumers(term: Terminal): Promise<void> {
    for (const [i, tokenId] of CARDS.entries()) {
      const p = await t.admin('POST', `/merchants/${term.serviceUserName}/profiles`, {
        fullName: `Guest ${i + 1}`,
        email: `guest${i + 1}@example.org`,
      });
      ok(p, 'profile');
      const id = (p.json() as { id: number }).id;
      ok(await t.admin('POST', `/profiles/${id}/tokens`, { tokenId, tokenType: 0 }), 'card');
    }
  }

  const dryRun = async (term: Terminal, body: Record<string, unknown>) => {
    const res = await t.admin('POST', `/merchants/${term.serviceUserName}/dryRun`, body);
    ok(res, 'dry run');
    return res.json() as Answer;
  };
  const upload = async (term: Terminal, basketId: string, body: object, query: Record<string, string>) => {
    const res = await term.pos('POST', `/baskets/${basketId}`, { body, query });
    ok(res, 'upload');
    return res.json() as Answer;
  };

  it('a campaign on an article group: the dry run as the till finds the group in its sortiment and gives the discount the upload gives', async () => {
    const term = await cafe();
    const campaign = {
      name: 'Coffee 20 %',
      type: 'product',
      discount: { percent: 20 },
      products: [{ group: 'DRINKS' }],
    };
    ok(await t.admin('POST', `/merchants/${term.serviceUserName}/campaigns`, campaign), 'campaign');
    const body = {
      Timestamp: '2026-03-02T09:15:00+01:00',
      HasDiscounts: false,
      Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 2, CurrentGrossPrice: 3.2 }],
    };
    const till = await upload(term, `G-${++n}`, body, {});
    expect(till.Rewards.map((r) => r.GrossRewardValue)).toEqual([1.28]);
    const dry = await dryRun(term, {
      basket: body,
      campaigns: [campaign],
      includeLiveCampaigns: false,
      trackingUnitId: term.trackingUnitId,
    });
    expect(dry.Rewards.map((r) => [r.GrossRewardValue, r.CouponId])).toEqual([[1.28, -1]]);
    expect(dry.explanations).toMatchObject([{ campaignId: 'draft-1', applied: true, reason: 'applied' }]);
    // The outlet alone names the till's sortiment as well.
    const byOutlet = await dryRun(term, {
      basket: body,
      campaigns: [campaign],
      includeLiveCampaigns: false,
      outletId: term.outletId,
    });
    expect(byOutlet.Rewards.map((r) => r.GrossRewardValue)).toEqual([1.28]);
  });

  it('for random baskets under random campaigns and schemes of every type, the dry run and the upload answer the same Rewards and LoyaltyInfo', async () => {
    let compared = 0;
    let rewarded = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(campaign, { minLength: 1, maxLength: 4 }),
        fc.option(scheme, { nil: null }),
        fc.array(basket, { minLength: 2, maxLength: 4 }),
        fc.constantFrom('Europe/Berlin', 'America/New_York'),
        async (campaigns, loyalty, baskets, timeZone) => {
          const term = await cafe(timeZone);
          await consumers(term);
          for (const [i, c] of campaigns.entries()) {
            const body = campaignBody(c as [Common, Record<string, unknown>], i + 1, term.outletId);
            ok(await t.admin('POST', `/merchants/${term.serviceUserName}/campaigns`, body), 'campaign');
          }
          if (loyalty !== null) {
            const { outletBound, ...rest } = loyalty;
            const body = { name: 'Stamps', ...rest, ...(outletBound ? { outletIds: [term.outletId] } : {}) };
            ok(await t.admin('POST', `/merchants/${term.serviceUserName}/loyaltySchemes`, body), 'scheme');
          }
          for (const b of baskets) {
            const { body, query } = basketBody(b);
            const basketId = `P-${++n}`;
            const dry = await dryRun(term, { basket: body, trackingUnitId: term.trackingUnitId, ...query });
            const till = await upload(term, basketId, body, query);
            expect(dry.Rewards).toEqual(till.Rewards);
            expect(dry.LoyaltyInfo).toEqual(till.LoyaltyInfo);
            compared += 1;
            if (till.Rewards.length > 0 || till.LoyaltyInfo.length > 0) rewarded += 1;
            // A granted basket commits the consumer's points and usages the next baskets see.
            if (b.grant) {
              ok(
                await term.pos('POST', `/baskets/${basketId}/grant`, {
                  sign: basketId,
                  query: { redeemedInPos: 'true' },
                }),
                'grant',
              );
            }
          }
        },
      ),
      { numRuns: 14, seed: 20261128 },
    );
    // The runs compared something that had rewards, not only empty answers.
    expect(compared).toBeGreaterThan(20);
    expect(rewarded).toBeGreaterThan(5);
  }, 240_000);
});
