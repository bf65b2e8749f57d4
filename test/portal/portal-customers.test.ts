import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import {
  type CheckoutClient,
  expectLedgerSound,
  orderBody,
  setupCheckout,
} from '../checkout/checkout-support.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type PortalSession, portalCall, portalSession } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';

interface Movement {
  transactionId: string;
  kind: string;
  amountMinor: number;
  balanceAfterMinor: number;
  channel: string;
  terminal: string | null;
}
interface CardAnswer {
  balanceMinor: number;
  holder: { profileId: number; fullName: string | null } | null;
  purchases: { purchases: number; orders: number; visits: number; lifetimeSpendMinor: number };
  recentBaskets: { basketId: string; billNumber: string | null }[];
  recentOrders: { orderId: string; shop: string | null; chargedMinor: number; refundedMinor: number }[];
  balanceHistory: Movement[];
}

describe.each(databases)('customers in the portal: one balance history (%s)', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  let owner: PortalSession;
  let profile: { id: number; card: string };
  let orderNumber = '';

  beforeAll(async () => {
    t = await startApp(kind);
    // Today at 10:00 UTC: the basket ten minutes after the order falls on the order's day in the
    // merchant's time zone (Europe/Berlin), whenever the tests run; from 23:50 there, it did not.
    const today = new Date(t.clock.nowMs());
    today.setUTCHours(10, 0, 0, 0);
    t.clock.ms = today.getTime();
    c = await setupCheckout(t);
    await t.admin('POST', `/merchants/${encodeURIComponent(c.serviceUserName)}/portalUsers`, {
      email: `owner-${kind}@customers.test`,
      password: PASSWORD,
    });
    owner = await portalSession(t, `owner-${kind}@customers.test`, PASSWORD);
    // A checkout top-up of 50.00, a till load of 10.00 and an unload of 2.50, an order of 7.00
    // paid from the balance and 3.00 of it refunded, a portal correction of -1.00, a basket.
    profile = await c.profile({ balance: 5_000 });
    expect((await tokens(c.term).add(profile.card, '10')).statusCode).toBe(200);
    expect((await tokens(c.term).withdraw(profile.card, '2.5')).statusCode).toBe(200);
    const body = orderBody(c, profile.card, [['1001', 2]], {
      totalGross: 700,
      balance: { requestCharge: true },
    });
    const order = await c.order(body);
    expect(order.statusCode, order.body).toBe(200);
    orderNumber = String(body.basketId);
    const refund = await c.call('POST', `/api/v1/orders/${String(body.basketId)}/refund`, { amount: 300 });
    expect(refund.statusCode, refund.body).toBe(200);
    const fix = await portalCall(t, owner, 'POST', `/cards/${profile.card}/corrections`, {
      amount: '-1.00',
      reason: 'Till miscount',
    });
    expect(fix.statusCode, fix.body).toBe(200);
    // Points on the basket: one a euro (no reward comes up at its 7 points).
    const scheme = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(c.serviceUserName)}/loyaltySchemes`,
      {
        name: 'Coffee card',
        earn: [{ per: 'amount', amount: 1, points: 1 }],
        reward: { threshold: 100, type: 'product', products: [{ plu: '1001' }], discount: { percent: 100 } },
      },
    );
    expect(scheme.statusCode, scheme.body).toBe(201);
    // The basket ten minutes after the order: the purchases list it first.
    t.clock.ms += 600_000;
    const up = await c.term.pos('POST', '/baskets/K-1', {
      body: {
        Timestamp: new Date(t.clock.nowMs()).toISOString().replace('Z', '+00:00'),
        HasDiscounts: false,
        CurrencyISO: 'EUR',
        BillNumber: 'R-77',
        Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 2, CurrentGrossPrice: 3.5 }],
      },
      query: { consumerIdentToken: profile.card },
    });
    expect(up.statusCode, up.body).toBe(200);
    expect((await c.term.pos('POST', '/baskets/K-1/grant', { sign: 'K-1' })).statusCode).toBe(200);
  }, 120_000);
  afterAll(async () => {
    await expectLedgerSound(t);
    await t.close();
  });

  it('the card names its holder and lists every balance movement, whichever interface made it, and the balance is their sum', async () => {
    const res = await portalCall(t, owner, 'GET', `/cards/${profile.card}`);
    expect(res.statusCode, res.body).toBe(200);
    const card = res.json() as CardAnswer;
    expect(card.holder).toEqual({ profileId: profile.id, fullName: 'Ada Lovelace', email: null });
    const seen = card.balanceHistory.map((m) => [m.kind, m.channel, m.amountMinor]).reverse();
    expect(seen).toEqual([
      ['top_up', 'checkout', 5_000],
      ['top_up', 'till', 1_000],
      ['withdrawal', 'till', -250],
      ['charge', 'checkout', -700],
      ['refund', 'checkout', 300],
      ['withdrawal', 'portal', -100],
    ]);
    expect(card.balanceMinor).toBe(5_250);
    expect(card.balanceHistory.reduce((s, m) => s + m.amountMinor, 0)).toBe(card.balanceMinor);
    expect(card.balanceHistory[0]?.balanceAfterMinor).toBe(card.balanceMinor);
    expect(card.balanceHistory.find((m) => m.channel === 'till')?.terminal).toBe('Till 1');
  });

  it("the balance history reconciles with the ledger: the same transfers, and the account's balance", async () => {
    const card = (await portalCall(t, owner, 'GET', `/cards/${profile.card}`)).json() as CardAnswer;
    const account = await t.database.db
      .selectFrom('profiles as p')
      .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
      .select(['a.id', 'a.balance_minor'])
      .where('p.id', '=', profile.id)
      .executeTakeFirstOrThrow();
    const transfers = await t.database.db
      .selectFrom('ledger_transfers')
      .select(['transaction_id', 'amount_minor', 'credit_account_id'])
      .where((eb) =>
        eb.or([eb('credit_account_id', '=', account.id), eb('debit_account_id', '=', account.id)]),
      )
      .orderBy('id', 'desc')
      .execute();
    expect(card.balanceHistory.map((m) => m.transactionId)).toEqual(transfers.map((x) => x.transaction_id));
    const sum = transfers.reduce(
      (s, x) => s + (Number(x.credit_account_id) === Number(account.id) ? 1 : -1) * Number(x.amount_minor),
      0,
    );
    expect(sum).toBe(Number(account.balance_minor));
    expect(card.balanceMinor).toBe(sum);
  });

  it('the card lists its purchases, visits and lifetime spend: its baskets and the checkout orders paid from its balance, as the balance history shows them', async () => {
    const card = (await portalCall(t, owner, 'GET', `/cards/${profile.card}`)).json() as CardAnswer;
    // The basket's 7.00 of positions, and the order's 7.00 charged less the 3.00 refunded.
    expect(card.purchases).toEqual({ purchases: 2, orders: 1, visits: 1, lifetimeSpendMinor: 1_100 });
    expect(card.recentBaskets).toEqual([expect.objectContaining({ basketId: 'K-1', billNumber: 'R-77' })]);
    expect(card.recentOrders).toEqual([
      {
        orderId: expect.any(String),
        basketId: orderNumber,
        shop: 'Web shop',
        createdAt: expect.any(String),
        totalGrossMinor: 700,
        chargedMinor: 700,
        refundedMinor: 300,
        status: 'completed',
      },
    ]);
    // Every order charge of the balance history is one of the purchases.
    const charges = card.balanceHistory.filter((m) => m.kind === 'charge').map((m) => -m.amountMinor);
    expect(charges).toEqual(card.recentOrders.map((o) => o.chargedMinor));
  });

  it('the card page lists the order with its shop among the purchases, newest first, in English and German', async () => {
    const get = async (lang: string) => {
      const res = await t.app.inject({
        method: 'GET',
        url: `/portal/cards?tokenId=${profile.card}`,
        headers: { cookie: owner.cookie, 'accept-language': lang },
      });
      expect(res.statusCode).toBe(200);
      const table = res.body.slice(res.body.indexOf('id="card-baskets"'));
      return table.slice(0, table.indexOf('</table>'));
    };
    const en = await get('en');
    expect(en).toMatch(
      /R-77[\s\S]*Web shop[\s\S]*Checkout order, paid from the balance[\s\S]*€7\.00[\s\S]*Refunded €3\.00/,
    );
    const de = await get('de');
    expect(de).toMatch(
      /Web shop[\s\S]*Checkout-Bestellung, vom Guthaben bezahlt[\s\S]*7,00\s€[\s\S]*Erstattet 3,00\s€/,
    );
    // The order's time opens the order's page; its number is the shop's, as the order list shows it.
    const card = (await portalCall(t, owner, 'GET', `/cards/${profile.card}`)).json() as CardAnswer;
    const orderId = card.recentOrders[0]?.orderId ?? '';
    const row = en.slice(en.indexOf('class="card-order"'));
    expect(row.slice(0, row.indexOf('</tr>'))).toMatch(
      new RegExp(
        `<a href="/portal/orders/${orderId}">[^<]+</a>[\\s\\S]*<span class="short-key" title="${orderNumber}">${orderNumber}</span>\\s*</td>`,
      ),
    );
    const page = await t.app.inject({
      method: 'GET',
      url: `/portal/orders/${orderId}`,
      headers: { cookie: owner.cookie },
    });
    expect(page.statusCode).toBe(200);
  });

  it('the profile shows its cards, points and balance with the same history', async () => {
    const res = await portalCall(t, owner, 'GET', `/profiles/${profile.id}`);
    expect(res.statusCode, res.body).toBe(200);
    const p = res.json() as {
      fullName: string;
      balanceMinor: number;
      cards: { tokenId: string }[];
      points: number;
      balanceHistory: Movement[];
    };
    expect(p.fullName).toBe('Ada Lovelace');
    expect(p.cards.map((x) => x.tokenId)).toEqual([profile.card]);
    expect(p.balanceMinor).toBe(5_250);
    expect(p.balanceHistory.reduce((s, m) => s + m.amountMinor, 0)).toBe(5_250);
    expect((await portalCall(t, owner, 'GET', '/profiles/999999')).statusCode).toBe(404);
  });

  it('the same history page by page, from the card and from the customer, ends where the whole list ends', async () => {
    const card = (await portalCall(t, owner, 'GET', `/cards/${profile.card}`)).json() as CardAnswer;
    for (const path of [`/cards/${profile.card}/balanceHistory`, `/profiles/${profile.id}/balanceHistory`]) {
      const first = await portalCall(t, owner, 'GET', `${path}?limit=4`);
      expect(first.statusCode, first.body).toBe(200);
      const one = first.json() as { data: Movement[]; hasMore: boolean; nextCursor: string };
      expect(one.hasMore).toBe(true);
      const rest = (await portalCall(t, owner, 'GET', `${path}?limit=4&cursor=${one.nextCursor}`)).json() as {
        data: Movement[];
        nextCursor: string | null;
      };
      expect(rest.nextCursor).toBeNull();
      expect([...one.data, ...rest.data]).toEqual(card.balanceHistory);
    }
    const points = await portalCall(t, owner, 'GET', `/cards/${profile.card}/pointsHistory`);
    expect(points.statusCode, points.body).toBe(200);
    expect((points.json() as { data: unknown[] }).data).toEqual([
      {
        kind: 'earn',
        points: 7,
        basketId: 'K-1',
        trackingUnitId: c.term.trackingUnitId,
        linkedCard: null,
        createdAt: expect.any(String),
      },
    ]);
    // The customer's points history: theirs and their card's, here the card's one earn.
    const customerPoints = await portalCall(t, owner, 'GET', `/profiles/${profile.id}/pointsHistory`);
    expect(customerPoints.statusCode, customerPoints.body).toBe(200);
    expect((customerPoints.json() as { data: unknown[] }).data).toEqual(
      (points.json() as { data: unknown[] }).data,
    );
  });

  it('the card and profile pages render: holder linked, the history, German dates and money', async () => {
    const page = await t.app.inject({
      method: 'GET',
      url: `/portal/cards?tokenId=${profile.card}`,
      headers: { cookie: owner.cookie },
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`href="/portal/profiles/${profile.id}"`);
    expect(page.body).toContain('id="balance-history"');
    const prof = await t.app.inject({
      method: 'GET',
      url: `/portal/profiles/${profile.id}`,
      headers: { cookie: owner.cookie, 'accept-language': 'de' },
    });
    expect(prof.statusCode).toBe(200);
    expect(prof.body).toContain('52,50');
  });

  it('a return takes what the till refunded off the lifetime spend, as the dashboard counts returns; it adds no purchase or visit', async () => {
    const ret = await c.term.pos('POST', '/baskets/K-1/return', {
      body: { ReturnId: 'R1', Positions: [{ PositionId: 1, Amount: 1 }] },
      sign: 'K-1R1',
    });
    expect(ret.statusCode, ret.body).toBe(200);
    const card = (await portalCall(t, owner, 'GET', `/cards/${profile.card}`)).json() as CardAnswer;
    // 11.00 less one of the two 3.50 coffees.
    expect(card.purchases).toEqual({ purchases: 2, orders: 1, visits: 1, lifetimeSpendMinor: 750 });
    const day = new Date(t.clock.nowMs()).toISOString().slice(0, 10);
    const dashboard = (await portalCall(t, owner, 'GET', `/dashboard?from=${day}&to=${day}`)).json() as {
      totals: { returnsMinor: number };
    };
    expect(dashboard.totals.returnsMinor).toBe(350);
    // The basket says what went back and what the till refunded, as the dashboard counts it.
    const path = `/baskets/${c.term.trackingUnitId}/K-1`;
    const basket = (await portalCall(t, owner, 'GET', path)).json() as {
      state: string;
      returns: { returnId: string; positions: unknown[]; valueMinor: number | null }[];
    };
    expect(basket.state).toBe('returned');
    expect(basket.returns).toEqual([
      {
        returnId: 'R1',
        createdAt: expect.any(String),
        positions: [{ positionId: 1, amount: '1' }],
        valueMinor: 350,
      },
    ]);
    await portalCall(t, owner, 'PUT', '/me/lang', { lang: 'de' });
    const page = await t.app.inject({
      method: 'GET',
      url: `/portal${path}`,
      headers: { cookie: owner.cookie },
    });
    await portalCall(t, owner, 'PUT', '/me/lang', { lang: 'en' });
    const text = page.body.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain('Mit Rückgabe');
    expect(text).toMatch(/R1 · \d\d\.\d\d\.\d{4}, \d\d:\d\d · 1 × 1001 · −3,50\s€/);
  });
});
