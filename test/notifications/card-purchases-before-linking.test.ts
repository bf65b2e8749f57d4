import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { signedIn } from './purchase-history.js';
import { uniqueId } from './support.js';

const DAY = 86_400_000;

/**
 * docs/decisions.md, "Purchases, receipts and the purchase mail": a customer card collects points at
 * the till before anyone links it to a profile; linked, its points move to the profile, and `/me`
 * lists the purchases that earned them beside the later ones. A card disposed of and registered
 * again starts a new life: what it bought before belongs to no later holder.
 */
describe.each(databases)('purchases made with a customer card before it was linked, on %s', (kind) => {
  let t: TestApp;
  let till: Terminal;
  const merchant = () => `/merchants/${encodeURIComponent(till.serviceUserName)}`;

  beforeAll(async () => {
    t = await startApp(kind);
    till = await setupTerminal(t);
    const scheme = await t.admin('POST', `${merchant()}/loyaltySchemes`, {
      name: 'Coffee points',
      earn: [{ per: 'amount', amount: 1, points: 1 }],
      reward: null,
    });
    expect(scheme.statusCode, scheme.body).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A granted basket of `euros` (one article) with the card; its id. */
  async function buy(card: string, euros: number): Promise<string> {
    t.clock.advance(DAY);
    const id = uniqueId('bill');
    const at = new Date(t.clock.nowMs() + 3_600_000).toISOString().slice(0, 19);
    const up = await till.pos('POST', `/baskets/${id}`, {
      query: { consumerIdentToken: card },
      body: {
        Timestamp: `${at}+01:00`,
        HasDiscounts: false,
        BillNumber: id,
        Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 1, CurrentGrossPrice: euros }],
      },
    });
    expect(up.statusCode, up.body).toBe(200);
    const g = await till.pos('POST', `/baskets/${id}/grant`, { sign: id, query: { redeemedInPos: 'true' } });
    expect(g.statusCode, g.body).toBe(200);
    return id;
  }

  async function profile(name: string): Promise<{ id: number; email: string }> {
    const email = `${uniqueId(name)}@example.org`;
    const p = await t.admin('POST', `${merchant()}/profiles`, { fullName: name, email, language: 'en' });
    expect(p.statusCode, p.body).toBe(201);
    return { id: (p.json() as { id: number }).id, email };
  }

  const link = async (profileId: number, card: string) => {
    const res = await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: card, tokenType: 0 });
    expect(res.statusCode, res.body).toBe(200);
  };

  /** The bill numbers `/me` lists, newest first. */
  async function listed(email: string): Promise<string[]> {
    const page = await t.app.inject({
      method: 'GET',
      url: '/me',
      headers: { cookie: await signedIn(t, email) },
    });
    expect(page.statusCode).toBe(200);
    const rows = [...page.body.matchAll(/<tr data-kind="pos_basket">([\s\S]*?)<\/tr>/g)];
    const receipts = rows.map((m) => /href="\/receipts\/([^"]+)"/.exec(m[1] ?? '')?.[1] ?? 'none');
    const found = await t.database.db
      .selectFrom('receipts')
      .select(['id', 'source_ref'])
      .where('id', 'in', receipts.length > 0 ? receipts : ['none'])
      .execute();
    // A basket's receipt is named by `{trackingUnitId}/{basketId}`.
    const billOf = new Map(found.map((r) => [r.id, r.source_ref.slice(r.source_ref.indexOf('/') + 1)]));
    return receipts.map((r) => billOf.get(r) ?? `unknown receipt ${r}`);
  }

  it('"the card\'s points came with it, and so do the purchases that earned them": /me lists the baskets made with the card before it was linked, with the later ones', async () => {
    const card = uniqueId('card');
    expect((await tokens(till).register(card, { tokentype: '0' })).statusCode).toBe(200);
    const first = await buy(card, 3.5);
    const second = await buy(card, 4.2);
    const ada = await profile('Ada');
    expect(await listed(ada.email)).toEqual([]);
    await link(ada.id, card);
    const third = await buy(card, 2.8);
    expect(await listed(ada.email)).toEqual([third, second, first]);
    // The points on the page are the three baskets' (3 + 4 + 2), all the profile's now.
    const points = await t.database.db
      .selectFrom('points_lots')
      .select((eb) => eb.fn.sum<string>('remaining').as('points'))
      .where('profile_id', '=', ada.id)
      .executeTakeFirstOrThrow();
    expect(Number(points.points)).toBe(9);
  });

  it('a card disposed of and registered again: its earlier purchases are shown to no later holder', async () => {
    const card = uniqueId('card');
    expect((await tokens(till).register(card, { tokentype: '0' })).statusCode).toBe(200);
    const before = await buy(card, 5);
    expect((await tokens(till).dispose(card)).statusCode).toBe(200);
    t.clock.advance(DAY);
    const bea = await profile('Bea');
    // Linking a released id registers it anew.
    await link(bea.id, card);
    const after = await buy(card, 6);
    expect(await listed(bea.email)).toEqual([after]);
    expect(before).not.toBe(after);
  });

  it("another profile's card bought nothing for this one; a gift card's purchases stay off the page", async () => {
    const mine = uniqueId('card');
    const theirs = uniqueId('card');
    const gift = uniqueId('gift');
    for (const [id, type] of [
      [mine, '0'],
      [theirs, '0'],
      [gift, '1'],
    ] as const) {
      expect((await tokens(till).register(id, { tokentype: type })).statusCode).toBe(200);
    }
    const own = await buy(mine, 3);
    await buy(theirs, 4);
    // Bought with the customer card, paid with a gift card: private ("Gift-card privacy").
    t.clock.advance(DAY);
    const paid = uniqueId('bill');
    const at = new Date(t.clock.nowMs() + 3_600_000).toISOString().slice(0, 19);
    const up = await till.pos('POST', `/baskets/${paid}`, {
      query: { consumerIdentToken: mine, giftCardId: gift },
      body: {
        Timestamp: `${at}+01:00`,
        HasDiscounts: false,
        Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 1, CurrentGrossPrice: 9 }],
      },
    });
    expect(up.statusCode, up.body).toBe(200);
    expect(
      (await till.pos('POST', `/baskets/${paid}/grant`, { sign: paid, query: { redeemedInPos: 'true' } }))
        .statusCode,
    ).toBe(200);
    const cem = await profile('Cem');
    const dan = await profile('Dan');
    await link(cem.id, mine);
    await link(dan.id, theirs);
    expect(await listed(cem.email)).toEqual([own]);
  });
});
