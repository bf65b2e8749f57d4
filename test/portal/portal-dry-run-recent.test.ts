import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type Terminal, type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';
import { type Till, addTill } from './dashboard-trade.js';
import { type PortalSession, ownerAndStaff, portalCall } from './portal-support.js';

/**
 * docs/decisions.md, "Why a campaign did not apply": the dry run over the recent baskets. A café's
 * breakfast bundle never applies; tried again over its last baskets, the answer says in how many
 * the cappuccino discount took its articles, and with the bundle's draft at a higher priority, in
 * how many it would apply and what it would give. The baskets are evaluated again as the dry run
 * evaluates one; their one-time-password-shaped entries count against no identification limit.
 */
describe.each(databases)('dry run over the recent baskets (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let second: Till & { trackingUnitId: string };
  let owner: PortalSession;
  let staff: PortalSession;
  let cappuccinoId = 0;
  let bundleId = 0;
  let regularsId = 0;
  let schemeId = 0;

  const bundle = {
    name: 'Frühstück',
    type: 'combination',
    discount: { price: 4.9 },
    combination: [
      { plu: '1001', quantity: 1 },
      { plu: '2001', quantity: 1 },
    ],
  };
  const line = (id: number, plu: string, price: number) => ({
    PositionId: id,
    ProductId: plu,
    Unit: 0,
    Amount: 1,
    CurrentGrossPrice: price,
  });

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t, { timeZone: 'Europe/Berlin' });
    second = await addTill(t, term, 'Terrasse');
    ({ owner, staff } = await ownerAndStaff(
      t,
      term.serviceUserName,
      { owner: 'inhaberin@cafe-letzte.test', staff: 'theke@cafe-letzte.test' },
      'fruehstueck-2026',
    ));
    const m = `/merchants/${encodeURIComponent(term.serviceUserName)}`;
    const made = async (body: object) => {
      const res = await t.admin('POST', `${m}/campaigns`, body);
      expect(res.statusCode, res.body).toBe(201);
      return (res.json() as { id: number }).id;
    };
    cappuccinoId = await made({
      name: 'Cappuccino -20 %',
      type: 'product',
      products: [{ plu: '1001' }],
      discount: { percent: 20 },
    });
    bundleId = await made(bundle);
    regularsId = await made({
      name: 'Stammgast',
      type: 'bill',
      discount: { amount: 0.5 },
      requiresConsumer: true,
    });
    const scheme = await t.admin('POST', `${m}/loyaltySchemes`, {
      name: 'Kaffeekarte',
      earn: [{ per: 'amount', amount: 1, points: 1 }],
    });
    expect(scheme.statusCode, scheme.body).toBe(201);
    schemeId = (scheme.json() as { id: number }).id;
    expect((await tokens(term).register('karte-7')).statusCode).toBe(200);
    expect((await tokens(term).register('karte-8')).statusCode).toBe(200);

    // Six baskets over three days: three breakfasts (one with a card, one at the terrace), two
    // cappuccinos alone, a croissant with an entry shaped like a one-time password.
    const day = 86_400_000;
    const baskets: { till: Pick<Till, 'pos'>; at: number; body: object; query?: Record<string, string> }[] = [
      { till: term, at: 3 * day, body: { Positions: [line(1, '1001', 3.2), line(2, '2001', 2.8)] } },
      {
        till: term,
        at: 3 * day - 3_600_000,
        body: { ContextIdentifiers: ['karte-7'], Positions: [line(1, '1001', 3.2), line(2, '2001', 2.8)] },
      },
      {
        till: second,
        at: 2 * day,
        query: { consumerIdentToken: 'karte-8' },
        body: { Positions: [line(1, '1001', 3.2), line(2, '2001', 2.8)] },
      },
      { till: term, at: 2 * day - 3_600_000, body: { Positions: [line(1, '1001', 3.2)] } },
      { till: second, at: day, body: { Positions: [line(1, '1001', 3.2)] } },
      {
        till: term,
        at: day - 3_600_000,
        body: { ContextIdentifiers: ['48151623'], Positions: [line(1, '2001', 2.8)] },
      },
    ];
    for (const [i, b] of baskets.entries()) {
      const res = await b.till.pos('POST', `/baskets/fr-${i + 1}`, {
        query: b.query ?? {},
        body: {
          Timestamp: new Date(t.clock.ms - b.at).toISOString().replace('Z', '+00:00'),
          HasDiscounts: false,
          ...b.body,
        },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.close();
  });

  const recent = (s: PortalSession, body: object) => portalCall(t, s, 'POST', '/dryRun/recent', body);
  type Answer = {
    baskets: number;
    skipped: number;
    customers: number;
    schemes: { schemeId: number | string; name: string; baskets: number; points: number }[];
    campaigns: {
      campaignId: number | string;
      name: string;
      applied: number;
      applications: number;
      discount: number;
      reasons: { reasonCode: string; blockedBy?: (number | string)[]; baskets: number; example: object }[];
    }[];
  };
  const byId = (a: Answer) => Object.fromEntries(a.campaigns.map((c) => [String(c.campaignId), c]));

  it('dryRunRecent.happy: per campaign the baskets it applied in, its discount, and why not in the others', async () => {
    const res = await recent(owner, {});
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json() as Answer;
    expect(answer).toMatchObject({ baskets: 6, skipped: 0 });
    expect(answer.campaigns.map((c) => c.campaignId)).toEqual([cappuccinoId, bundleId, regularsId]);
    const c = byId(answer);
    // Five cappuccinos at 3.20, 20 % each: 0.64 × 5.
    expect(c[String(cappuccinoId)]).toMatchObject({ applied: 5, applications: 5, discount: 3.2 });
    expect(c[String(cappuccinoId)]?.reasons).toEqual([
      {
        reasonCode: 'no_article_matches',
        baskets: 1,
        example: { trackingUnitId: term.trackingUnitId, basketId: 'fr-6' },
      },
    ]);
    // The bundle: the cappuccino discount, processed first, took the cappuccino of five baskets;
    // the croissant alone lacks its cappuccino.
    expect(c[String(bundleId)]).toMatchObject({ applied: 0, applications: 0, discount: 0 });
    expect(c[String(bundleId)]?.reasons).toEqual([
      {
        reasonCode: 'no_units_left',
        blockedBy: [cappuccinoId],
        baskets: 5,
        // The newest of the five: the terrace's cappuccino of yesterday.
        example: { trackingUnitId: second.trackingUnitId, basketId: 'fr-5' },
      },
      {
        reasonCode: 'no_units_left',
        baskets: 1,
        example: { trackingUnitId: term.trackingUnitId, basketId: 'fr-6' },
      },
    ]);
    // Two baskets name a customer, each 6.00 less the cappuccino's 0.64 and the regular's 0.50:
    // 4.86 earns 4 points.
    expect(answer.customers).toBe(2);
    expect(answer.schemes).toEqual([{ schemeId, name: 'Kaffeekarte', baskets: 2, points: 8 }]);
    // Two baskets are a known customer's: a card among the ContextIdentifiers, a card in the query.
    expect(c[String(regularsId)]).toMatchObject({ applied: 2, discount: 1 });
    expect(c[String(regularsId)]?.reasons).toEqual([
      expect.objectContaining({ reasonCode: 'consumer_required', baskets: 4 }),
    ]);
  });

  it('dryRunRecent.happy: the bundle’s draft at a higher priority applies in the three breakfasts and leaves the cappuccino discount two', async () => {
    const res = await recent(staff, {
      campaigns: [{ ...bundle, priority: 10 }],
      replaces: { campaigns: [bundleId] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json() as Answer;
    expect(answer.campaigns.map((c) => c.campaignId)).toEqual(['draft-1', cappuccinoId, regularsId]);
    const c = byId(answer);
    // 3.20 + 2.80 for 4.90: 1.10 a breakfast.
    expect(c['draft-1']).toMatchObject({ name: 'Frühstück', applied: 3, applications: 3, discount: 3.3 });
    expect(c['draft-1']?.reasons).toEqual([
      expect.objectContaining({ reasonCode: 'no_units_left', baskets: 3 }),
    ]);
    expect(c[String(cappuccinoId)]).toMatchObject({ applied: 2, discount: 1.28 });
    expect(c[String(cappuccinoId)]?.reasons).toEqual([
      expect.objectContaining({ reasonCode: 'no_units_left', blockedBy: ['draft-1'], baskets: 3 }),
      expect.objectContaining({ reasonCode: 'no_article_matches', baskets: 1 }),
    ]);
  });

  it('dryRunRecent.happy: a scheme’s draft standing in for the live one: the points it would earn the customers of those baskets', async () => {
    const res = await recent(owner, {
      schemes: [{ name: 'Doppelte Punkte', earn: [{ per: 'amount', amount: 1, points: 2 }] }],
      replaces: { schemes: [schemeId] },
    });
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json() as Answer;
    // The same two customers' baskets: 4.86 earns 2 points a whole euro, 8 each.
    expect(answer.customers).toBe(2);
    expect(answer.schemes).toEqual([
      { schemeId: 'draft-1', name: 'Doppelte Punkte', baskets: 2, points: 16 },
    ]);
  });

  it('dryRunRecent: the newest baskets by their time, as many as asked', async () => {
    const res = await recent(owner, { limit: 2 });
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json() as Answer;
    expect(answer.baskets).toBe(2);
    // The newest two, of yesterday: the croissant and the terrace's cappuccino.
    expect(byId(answer)[String(bundleId)]?.reasons).toEqual([
      expect.objectContaining({
        reasonCode: 'no_units_left',
        baskets: 1,
        example: expect.objectContaining({ basketId: 'fr-6' }),
      }),
      expect.objectContaining({ reasonCode: 'no_units_left', blockedBy: [cappuccinoId], baskets: 1 }),
    ]);
  });

  it('dryRunRecent: stored entries shaped like one-time passwords count against no identification limit', async () => {
    // The merchant's tills may fail 10 such lookups a window; twelve runs try the croissant's twelve times.
    for (let i = 0; i < 12; i++) {
      const res = await recent(owner, {});
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ baskets: 6, skipped: 0 });
    }
    const till = await term.pos('POST', '/baskets/fr-7', {
      body: {
        Timestamp: new Date(t.clock.ms).toISOString().replace('Z', '+00:00'),
        HasDiscounts: false,
        ContextIdentifiers: ['16234248'],
        Positions: [line(1, '2001', 2.8)],
      },
    });
    expect(till.statusCode, till.body).toBe(200);
  });

  it('dryRunRecent: a basket whose card in the query is locked since is counted as skipped, not guessed at', async () => {
    expect((await tokens(term).lock('karte-8')).statusCode).toBe(200);
    const res = await recent(owner, {});
    expect(res.statusCode, res.body).toBe(200);
    const answer = res.json() as Answer;
    // Seven baskets by now (the till's croissant above): the terrace's breakfast is skipped.
    expect(answer).toMatchObject({ baskets: 6, skipped: 1 });
    expect(byId(answer)[String(regularsId)]).toMatchObject({ applied: 1, discount: 0.5 });
  });

  it('dryRunRecent: the operator API answers the same for the merchant; an unknown merchant is 404', async () => {
    const u = encodeURIComponent(term.serviceUserName);
    const body = { campaigns: [{ ...bundle, priority: 10 }], replaces: { campaigns: [bundleId] } };
    const operator = await t.admin('POST', `/merchants/${u}/dryRun/recent`, body);
    expect(operator.statusCode, operator.body).toBe(200);
    const portal = await recent(owner, body);
    expect(operator.json()).toEqual(portal.json());
    expect((operator.json() as Answer).baskets).toBeGreaterThan(0);
    const unknown = await t.admin('POST', '/merchants/no-such-merchant/dryRun/recent', {});
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ error: { code: 'not_found' } });
  });

  it('dryRunRecent: a customer’s usages are today’s: a campaign once per customer, used since, says so for their earlier basket too', async () => {
    const m = `/merchants/${encodeURIComponent(term.serviceUserName)}`;
    const made = await t.admin('POST', `${m}/campaigns`, {
      name: 'Erster Croissant gratis',
      type: 'product',
      products: [{ plu: '2001' }],
      discount: { percent: 100 },
      usageLimitPerConsumer: 1,
      maxApplications: 1,
    });
    expect(made.statusCode, made.body).toBe(201);
    const onceId = (made.json() as { id: number }).id;
    // The customer of karte-7 takes it today.
    const today = await term.pos('POST', '/baskets/fr-8', {
      body: {
        Timestamp: new Date(t.clock.ms).toISOString().replace('Z', '+00:00'),
        HasDiscounts: false,
        ContextIdentifiers: ['karte-7'],
        Positions: [line(1, '2001', 2.8)],
      },
    });
    expect(today.statusCode, today.body).toBe(200);
    const grant = await term.pos('POST', '/baskets/fr-8/grant', {
      sign: 'fr-8',
      query: { redeemedInPos: 'true' },
    });
    expect(grant.statusCode, grant.body).toBe(200);
    const res = await recent(owner, {});
    expect(res.statusCode, res.body).toBe(200);
    const once = byId(res.json() as Answer)[String(onceId)];
    // fr-8 itself and fr-2 three days ago, both the customer's: used as often as it allows.
    expect(once?.applied).toBe(0);
    expect(once?.reasons).toContainEqual(
      expect.objectContaining({ reasonCode: 'usage_limit_reached', baskets: 2 }),
    );
  });

  it("an open basket of a reason's example shows the campaigns its upload offered the till; once granted, the rewards booked instead", async () => {
    // fr-4: a cappuccino alone, not granted; the cappuccino discount was offered at its upload.
    const path = `/baskets/${encodeURIComponent(term.trackingUnitId)}/fr-4`;
    const open = await portalCall(t, owner, 'GET', path);
    expect(open.statusCode, open.body).toBe(200);
    expect(open.json()).toMatchObject({
      state: 'open',
      rewards: [],
      offered: [{ couponId: cappuccinoId, name: 'Cappuccino -20 %' }],
    });
    const grant = await term.pos('POST', '/baskets/fr-4/grant', {
      sign: 'fr-4',
      query: { redeemedInPos: 'true' },
    });
    expect(grant.statusCode, grant.body).toBe(200);
    const granted = (await portalCall(t, owner, 'GET', path)).json();
    expect(granted).toMatchObject({ state: 'granted', offered: [] });
    expect(granted.rewards).toEqual([
      expect.objectContaining({ couponId: cappuccinoId, name: 'Cappuccino -20 %' }),
    ]);
  });

  it('dryRunRecent.error: a limit out of range or an invalid draft answers 400 naming the field; without the CSRF token 403', async () => {
    const tooMany = await recent(owner, { limit: 101 });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json()).toMatchObject({ error: { code: 'invalid_request' } });
    const draft = await recent(owner, { campaigns: [{ ...bundle, combination: [] }] });
    expect(draft.statusCode).toBe(400);
    expect(JSON.stringify(draft.json())).toContain('campaigns');
    const noToken = await portalCall(t, { cookie: owner.cookie }, 'POST', '/dryRun/recent', {});
    expect(noToken.statusCode).toBe(403);
  });
});
