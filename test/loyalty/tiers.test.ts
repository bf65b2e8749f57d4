import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tierStatuses } from '../../src/loyalty/tiers.store.js';
import {
  type TestApp,
  type Terminal,
  databases,
  merchantIdOf,
  setupTerminal,
  startApp,
} from '../support/harness.js';
import { tokens } from '../cards/cards-support.js';
import { TIERS, tierScheme } from './tier-scheme.js';

/** Status tiers (docs/decisions.md, "Status tiers"): definition, validation and a consumer's standing. */

const DAY_MS = 86_400_000;
const scheme = tierScheme;

describe.each(databases)('status tiers on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let base: string;
  let n = 0;
  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    base = `/merchants/${term.serviceUserName}/loyaltySchemes`;
  });
  afterAll(() => t?.close());

  type Details = { PreviousPoints: number; NewPoints: number };
  const details = (body: string) =>
    (JSON.parse(body) as { LoyaltyInfo: { Details: Details[] }[] }).LoyaltyInfo[0]?.Details[0];
  /** A one-line basket of `price` for the card, at the clock's time; its first loyalty details. */
  const uploadFor = async (term: Terminal, token: string, basketId: string, price: number) => {
    const body = {
      Timestamp: new Date(t.clock.nowMs()).toISOString(),
      HasDiscounts: false,
      Positions: [{ PositionId: 1, ProductId: 'X', Unit: 0, Amount: 1, CurrentGrossPrice: price }],
    };
    const up = await term.pos('POST', `/baskets/${basketId}`, { body, query: { consumerIdentToken: token } });
    expect(up.statusCode, up.body).toBe(200);
    return details(up.body);
  };
  const grantOf = async (term: Terminal, basketId: string) => {
    const g = await term.pos('POST', `/baskets/${basketId}/grant`, {
      sign: basketId,
      query: { redeemedInPos: 'true' },
    });
    expect(g.statusCode, g.body).toBe(200);
    return details(g.body);
  };
  const profileWithCard = async (term: Terminal, token: string) => {
    const p = await t.admin('POST', `/merchants/${term.serviceUserName}/profiles`, { fullName: token });
    const profileId = (p.json() as { id: number }).id;
    await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: token, tokenType: 0 });
    return profileId;
  };

  const refusals: [string, object, string][] = [
    ['tiers without a basis', { tierBasis: undefined }, 'tierBasis'],
    ['a basis without tiers', { tiers: [] }, 'tierBasis'],
    [
      'both periods',
      { tierBasis: { measure: 'points', period: { rollingDays: 3, calendar: 'month' } } },
      'tierBasis.period',
    ],
    ['no period', { tierBasis: { measure: 'points', period: {} } }, 'tierBasis.period'],
    [
      '0 rolling days',
      { tierBasis: { measure: 'points', period: { rollingDays: 0 } } },
      'tierBasis.period.rollingDays',
    ],
    ['thresholds not ascending', { tiers: [TIERS[1], TIERS[0]] }, 'tiers[1].threshold'],
    ['equal thresholds', { tiers: [TIERS[0], { ...TIERS[1], threshold: 100 }] }, 'tiers[1].threshold'],
    ['a threshold of 0', { tiers: [{ ...TIERS[0], threshold: 0 }] }, 'tiers[0].threshold'],
    ['fractional points', { tiers: [{ ...TIERS[0], threshold: 10.5 }] }, 'tiers[0].threshold'],
    ['a multiplier below 1', { tiers: [{ ...TIERS[0], multiplier: 0.5 }] }, 'tiers[0].multiplier'],
    ['a multiplier above 10', { tiers: [{ ...TIERS[0], multiplier: 11 }] }, 'tiers[0].multiplier'],
    ['four decimals', { tiers: [{ ...TIERS[0], multiplier: 1.2345 }] }, 'tiers[0].multiplier'],
    ['a name twice', { tiers: [TIERS[0], { ...TIERS[1], name: 'silver' }] }, 'tiers[1].name'],
    ['an empty name', { tiers: [{ ...TIERS[0], name: '  ' }] }, 'tiers[0].name'],
    [
      'spend with three decimals',
      {
        tierBasis: { measure: 'spend', period: { calendar: 'year' } },
        tiers: [{ ...TIERS[0], threshold: 10.001 }],
      },
      'tiers[0].threshold',
    ],
  ];

  it.each(refusals)(
    'tiers.error: %s is refused with 400 naming the field, nothing stored',
    async (_n, patch, field) => {
      const count = ((await t.admin('GET', `${base}?limit=100`)).json().data as unknown[]).length;
      const res = await t.admin('POST', base, scheme(patch));
      expect(res.statusCode, res.body).toBe(400);
      const body = res.json() as { error: { code: string; message: string; details?: { field?: string } } };
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.details?.field).toBe(field);
      expect(((await t.admin('GET', `${base}?limit=100`)).json().data as unknown[]).length).toBe(count);
    },
  );

  it('a scheme with tiers is stored and read back as sent; without tiers it has none', async () => {
    const res = await t.admin('POST', base, scheme());
    expect(res.statusCode, res.body).toBe(201);
    const { id } = res.json() as { id: number };
    const read = await t.admin('GET', `${base}/${id}`);
    expect(read.json()).toMatchObject({
      tiers: TIERS,
      tierBasis: { measure: 'points', period: { rollingDays: 30 } },
    });
    const plain = await t.admin('POST', base, scheme({ tiers: undefined, tierBasis: undefined }));
    expect(plain.statusCode, plain.body).toBe(201);
    const plainRead = (
      await t.admin('GET', `${base}/${(plain.json() as { id: number }).id}`)
    ).json() as object;
    expect(plainRead).not.toHaveProperty('tiers');
    await t.admin('DELETE', `${base}/${id}`);
    await t.admin('DELETE', `${base}/${(plain.json() as { id: number }).id}`);
  });

  it('a profile stands in the tier its points of the period reach, with what is missing to the next; returns count against it', async () => {
    const own = await setupTerminal(t);
    const created = await t.admin('POST', `/merchants/${own.serviceUserName}/loyaltySchemes`, scheme());
    expect(created.statusCode, created.body).toBe(201);
    const schemeId = (created.json() as { id: number }).id;
    const profileId = await profileWithCard(own, 'TIER-1');

    const profileTiers = async () =>
      ((await t.admin('GET', `/profiles/${profileId}`)).json() as { tiers: unknown[] }).tiers;
    expect(await profileTiers()).toEqual([
      {
        schemeId,
        schemeName: 'Coffee card',
        measure: 'points',
        period: { rollingDays: 30 },
        value: 0,
        tier: null,
        next: { name: 'Silver', threshold: 100, missing: 100 },
      },
    ]);

    const buy = async (price: number) => {
      const basketId = `TIER-B-${++n}`;
      await uploadFor(own, 'TIER-1', basketId, price);
      await grantOf(own, basketId);
      return basketId;
    };
    await buy(60);
    t.clock.advance(10 * DAY_MS);
    const second = await buy(70);
    expect(await profileTiers()).toMatchObject([
      {
        value: 130,
        tier: { name: 'Silver', multiplier: 1.5 },
        next: { name: 'Gold', threshold: 300, missing: 170 },
      },
    ]);

    // A return takes its points back from the measure too.
    const ret = await own.pos('POST', `/baskets/${second}/return`, {
      sign: `${second}R1`,
      body: { ReturnId: 'R1', Positions: [{ PositionId: 1, Amount: 1 }] },
    });
    expect([200, 201], ret.body).toContain(ret.statusCode);
    expect(await profileTiers()).toMatchObject([
      { value: 60, tier: null, next: { name: 'Silver', missing: 40 } },
    ]);

    // Rolling 30 days: the first basket's points leave the period.
    t.clock.advance(25 * DAY_MS);
    const merchantId = await merchantIdOf(t, own);
    const direct = await tierStatuses(t.database.db, merchantId, { profileId }, t.clock.nowMs());
    expect(direct[0]?.value).toBe(0);
  });

  it("the points customer cards earned before they were linked count for the profile's tier once each; a card asked alone counts its own", async () => {
    const own = await setupTerminal(t);
    const created = await t.admin('POST', `/merchants/${own.serviceUserName}/loyaltySchemes`, scheme());
    expect(created.statusCode, created.body).toBe(201);
    const merchantId = await merchantIdOf(t, own);
    const buy = async (token: string, price: number) => {
      const basketId = `TIER-C-${++n}`;
      await uploadFor(own, token, basketId, price);
      await grantOf(own, basketId);
    };
    const cardA = `TIER-CA-${n}`;
    const cardB = `TIER-CB-${n}`;
    for (const card of [cardA, cardB]) {
      expect((await tokens(own).register(card, { tokentype: '0' })).statusCode).toBe(200);
    }
    await buy(cardA, 60);
    await buy(cardB, 30);
    const cardIdOf = async (token: string) =>
      (
        await t.database.db
          .selectFrom('cards')
          .select('id')
          .where('token_id', '=', token)
          .executeTakeFirstOrThrow()
      ).id;
    const measure = async (consumer: { profileId: number } | { cardId: number }) =>
      (await tierStatuses(t.database.db, merchantId, consumer, t.clock.nowMs()))[0]?.value;
    expect(await measure({ cardId: await cardIdOf(cardA) })).toBe(60);
    expect(await measure({ cardId: await cardIdOf(cardB) })).toBe(30);

    // Both cards linked to one profile: their points before the link are the profile's, and what
    // they earn after it (booked to the profile itself, points_holder) counts once.
    const p = await t.admin('POST', `/merchants/${own.serviceUserName}/profiles`, { fullName: 'Two cards' });
    const profileId = (p.json() as { id: number }).id;
    expect(await measure({ profileId })).toBe(0);
    for (const card of [cardA, cardB]) {
      const linked = await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: card, tokenType: 0 });
      expect(linked.statusCode, linked.body).toBe(200);
    }
    expect(await measure({ profileId })).toBe(90);
    await buy(cardA, 20);
    expect(await measure({ profileId })).toBe(110);
    const profileTiers = (await t.admin('GET', `/profiles/${profileId}`)).json() as { tiers: unknown[] };
    expect(profileTiers.tiers).toMatchObject([{ value: 110, tier: { name: 'Silver' } }]);
  });

  it('spend over the calendar month in the merchant time zone; the month before does not count', async () => {
    const own = await setupTerminal(t, { timeZone: 'Europe/Berlin' });
    const created = await t.admin(
      'POST',
      `/merchants/${own.serviceUserName}/loyaltySchemes`,
      scheme({
        tiers: [{ name: 'Regular', threshold: 50, multiplier: 1.25 }],
        tierBasis: { measure: 'spend', period: { calendar: 'month' } },
      }),
    );
    expect(created.statusCode, created.body).toBe(201);
    const profileId = await profileWithCard(own, 'TIER-2');
    // 23:30 Berlin on 31 March is still March; 00:30 on 1 April is April.
    const march = Date.parse('2026-03-31T21:30:00Z');
    const april = Date.parse('2026-03-31T22:30:00Z');
    const buyAt = async (ms: number, price: number) => {
      t.clock.ms = ms;
      const basketId = `TIER-S-${++n}`;
      await uploadFor(own, 'TIER-2', basketId, price);
      await grantOf(own, basketId);
    };
    await buyAt(march, 40);
    await buyAt(april, 12.5);
    const merchantId = await merchantIdOf(t, own);
    const [status] = await tierStatuses(t.database.db, merchantId, { profileId }, april + 1000);
    expect(status).toMatchObject({
      measure: 'spend',
      period: { calendar: 'month' },
      value: 1250,
      tier: null,
    });
    expect(status?.next).toEqual({ name: 'Regular', threshold: 5000, missing: 3750 });
    const [inMarch] = await tierStatuses(t.database.db, merchantId, { profileId }, march + 1000);
    expect(inMarch?.value).toBe(4000);
  });

  it('the grant multiplies what the scheme earns by the tier the consumer had before the basket; a return takes back exactly that', async () => {
    const own = await setupTerminal(t);
    const created = await t.admin('POST', `/merchants/${own.serviceUserName}/loyaltySchemes`, scheme());
    expect(created.statusCode, created.body).toBe(201);
    const profileId = await profileWithCard(own, 'TIER-3');
    const upload = (basketId: string, price: number) => uploadFor(own, 'TIER-3', basketId, price);
    const grant = (basketId: string) => grantOf(own, basketId);
    const first = `TIER-G-${++n}`;
    const second = `TIER-G-${++n}`;
    expect(await upload(first, 100)).toEqual(expect.objectContaining({ PreviousPoints: 0, NewPoints: 100 }));
    // Uploaded before the first grant: no tier yet, 10 points shown.
    expect(await upload(second, 10.99)).toEqual(
      expect.objectContaining({ PreviousPoints: 0, NewPoints: 10 }),
    );
    expect(await grant(first)).toEqual(expect.objectContaining({ NewPoints: 100 }));
    // At its grant the consumer is Silver (100 points in 30 days): 10 x 1.5 = 15.
    expect(await grant(second)).toEqual(expect.objectContaining({ PreviousPoints: 100, NewPoints: 115 }));
    const third = `TIER-G-${++n}`;
    expect(await upload(third, 3)).toEqual(expect.objectContaining({ PreviousPoints: 115, NewPoints: 119 }));

    const ret = await own.pos('POST', `/baskets/${second}/return`, {
      sign: `${second}R1`,
      body: { ReturnId: 'R1', Positions: [{ PositionId: 1, Amount: 1 }] },
    });
    expect(ret.statusCode, ret.body).toBe(200);
    const lots = await t.database.db
      .selectFrom('points_movements')
      .select(['kind', 'points'])
      .where('profile_id', '=', profileId)
      .orderBy('id')
      .execute();
    expect(lots.map((l) => [l.kind, l.points])).toEqual([
      ['earn', 100],
      ['earn', 15],
      ['return_earned', -15],
    ]);
  });

  it('a merchant without tiers reads no tier measure at the upload or the grant', async () => {
    const own = await setupTerminal(t);
    const created = await t.admin(
      'POST',
      `/merchants/${own.serviceUserName}/loyaltySchemes`,
      scheme({ tiers: undefined, tierBasis: undefined }),
    );
    expect(created.statusCode, created.body).toBe(201);
    await profileWithCard(own, 'TIER-4');
    const basketId = `TIER-N-${++n}`;
    expect(await uploadFor(own, 'TIER-4', basketId, 20)).toEqual(expect.objectContaining({ NewPoints: 20 }));
    const stored = await t.database.db
      .selectFrom('baskets')
      .select('result')
      .where('basket_id', '=', basketId)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(stored.result)).not.toContain('tierBases');
    expect(await grantOf(own, basketId)).toEqual(expect.objectContaining({ NewPoints: 20 }));
  });
});
