import { expect } from 'vitest';
import { issueSignIn, openSignIn } from '../../src/notifications/consumer-portal.js';
import { profilesByEmail } from '../../src/notifications/consumer-auth.store.js';
import { tokens } from '../cards/cards-support.js';
import { type CheckoutClient, orderBody, setupCheckout } from '../checkout/checkout-support.js';
import type { TestApp, Terminal } from '../support/harness.js';
import { posCall } from '../support/harness.js';
import { receiptBasket, uniqueId } from './support.js';

/**
 * Several weeks of a consumer's purchases at a merchant with two outlets and a web shop: baskets
 * at both tills (one partly returned, one paid partly from the balance), an online top-up and a
 * top-up at the till, a checkout order paid from the balance and one refunded.
 */
export interface PurchaseHistory {
  readonly shop: CheckoutClient;
  readonly main: Terminal;
  readonly station: Terminal;
  readonly profileId: number;
  readonly card: string;
  readonly email: string;
  /** Basket ids in the order they were made. */
  readonly baskets: string[];
  readonly returnedBasket: string;
  readonly paidBasket: string;
  readonly order: string;
  readonly refundedOrder: string;
}

const DAY = 86_400_000;

/** The merchant's legal name, address and VAT id, as its receipts show them. */
export const RECEIPT_DETAILS = {
  legalName: 'Kaffeehaus Berg GmbH',
  address: 'Hauptstraße 1\n10115 Berlin',
  taxNumber: 'DE123456789',
};

/** The till's local time of now, as ISO 8601 with the offset of Berlin in winter. */
function tillTime(t: TestApp): string {
  const local = new Date(t.clock.nowMs() + 3_600_000).toISOString().slice(0, 19);
  return `${local}+01:00`;
}

/** A second outlet of the terminal's merchant with its own till, activated. */
export async function secondTill(t: TestApp, term: Terminal, name: string): Promise<Terminal> {
  const headers = { devkey: term.devKey, accept: 'application/json', 'content-type': 'application/json' };
  const o = await t.app.inject({
    method: 'POST',
    url: `/api/pos/v3/merchants/${encodeURIComponent(term.serviceUserName)}/outlets?brandId=${term.brandId}`,
    headers,
    payload: { Name: name, Street: 'Bahnhofplatz 1', PostalIndex: '10115', City: 'Berlin' },
  });
  expect(o.statusCode, o.body).toBe(200);
  const outletId = (o.json() as { Id: number }).Id;
  const r = await t.app.inject({
    method: 'GET',
    url: `/api/pos/v3/trackingUnits?serviceUserName=${encodeURIComponent(term.serviceUserName)}&outletId=${outletId}&instanceName=Till%202`,
    headers: { devkey: term.devKey, accept: 'application/json' },
  });
  const { trackingUnitId, checksumSecret } = r.json() as { trackingUnitId: string; checksumSecret: string };
  expect((await t.admin('POST', `/trackingUnits/${trackingUnitId}/activate`)).statusCode).toBe(200);
  return {
    ...term,
    outletId,
    trackingUnitId,
    checksumSecret,
    pos: (method, path, request = {}) =>
      posCall(t, { devKey: term.devKey, trackingUnitId, checksumSecret }, method, path, request),
  };
}

async function grant(term: Terminal, basketId: string): Promise<void> {
  const g = await term.pos('POST', `/baskets/${basketId}/grant`, {
    sign: basketId,
    query: { redeemedInPos: 'true' },
  });
  expect(g.statusCode, g.body).toBe(200);
}

async function upload(t: TestApp, term: Terminal, basketId: string, card: string): Promise<void> {
  const up = await term.pos('POST', `/baskets/${basketId}`, {
    query: { consumerIdentToken: card },
    body: { ...receiptBasket(false), Timestamp: tillTime(t), BillNumber: basketId },
  });
  expect(up.statusCode, up.body).toBe(200);
}

export async function purchaseHistory(t: TestApp): Promise<PurchaseHistory> {
  const shop = await setupCheckout(t);
  const main = shop.term;
  const station = await secondTill(t, main, 'Station square');
  const scheme = await t.admin(
    'POST',
    `/merchants/${encodeURIComponent(main.serviceUserName)}/loyaltySchemes`,
    {
      name: 'Coffee points',
      earn: [{ per: 'amount', amount: 1, points: 1 }],
      reward: null,
    },
  );
  expect(scheme.statusCode, scheme.body).toBe(201);
  // What the receipts say of the merchant (docs/decisions.md, "Receipts a shop can hand out").
  const details = await t.admin(
    'PUT',
    `/merchants/${encodeURIComponent(main.serviceUserName)}/receiptDetails`,
    RECEIPT_DETAILS,
  );
  expect(details.statusCode, details.body).toBe(200);
  const email = `${uniqueId('anna')}@example.org`;
  const p = await t.admin('POST', `/merchants/${encodeURIComponent(main.serviceUserName)}/profiles`, {
    fullName: 'Anna Berg',
    email,
    language: 'en',
  });
  expect(p.statusCode, p.body).toBe(201);
  const profileId = (p.json() as { id: number }).id;
  const card = uniqueId('card');
  expect((await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: card })).statusCode).toBe(200);

  // Week 1: an online top-up of 30.00, then a coffee at each outlet.
  const topUp = await shop.call('POST', `/api/v1/profiles/${card}/topUps`, { amount: 3000, currency: 'EUR' });
  expect(topUp.statusCode, topUp.body).toBe(201);
  const baskets: string[] = [];
  for (const [i, till] of [main, station, main, station, main].entries()) {
    t.clock.advance(3 * DAY + 3_600_000);
    const id = uniqueId(`bill-${i + 1}`);
    await upload(t, till, id, card);
    await grant(till, id);
    baskets.push(id);
  }
  // Week 3: the second basket's one cappuccino comes back.
  t.clock.advance(DAY);
  const returnedBasket = baskets[1] ?? '';
  const ret = await station.pos('POST', `/baskets/${returnedBasket}/return`, {
    body: { ReturnId: 'R1', Positions: [{ PositionId: 1, Amount: 1 }] },
    sign: `${returnedBasket}R1`,
  });
  expect(ret.statusCode, ret.body).toBe(200);
  // 20.00 loaded at the main till.
  t.clock.advance(DAY);
  expect((await tokens(main).add(card, '20.00')).statusCode).toBe(200);
  // A basket at the station paid 5.00 from the balance (withdrawn between upload and grant).
  t.clock.advance(DAY);
  const paidBasket = uniqueId('bill-paid');
  await upload(t, station, paidBasket, card);
  t.clock.advance(60_000);
  expect((await tokens(station).withdraw(card, '5.00')).statusCode).toBe(200);
  t.clock.advance(60_000);
  await grant(station, paidBasket);
  baskets.push(paidBasket);
  // Week 4: a web-shop order paid from the balance (7.90), and one refunded the next day (12.99).
  t.clock.advance(2 * DAY);
  const first = orderBody(
    shop,
    card,
    [
      ['1001', 1],
      ['1002', 2],
    ],
    {
      totalGross: 790,
      balance: { requestCharge: true },
      orderTimestamp: new Date(t.clock.nowMs()).toISOString(),
    },
  );
  const o1 = await shop.order(first);
  expect(o1.statusCode, o1.body).toBe(200);
  t.clock.advance(DAY);
  const second = orderBody(shop, card, [['1003', 1]], {
    totalGross: 1299,
    balance: { requestCharge: true },
    orderTimestamp: new Date(t.clock.nowMs()).toISOString(),
  });
  const o2 = await shop.order(second);
  expect(o2.statusCode, o2.body).toBe(200);
  t.clock.advance(DAY);
  const refund = await shop.call('POST', `/api/v1/orders/${second.basketId as string}/refund`);
  expect(refund.statusCode, refund.body).toBe(200);
  const idOf = async (basketId: string) =>
    (
      await t.database.db
        .selectFrom('checkout_orders')
        .select('id')
        .where('basket_id', '=', basketId)
        .executeTakeFirstOrThrow()
    ).id;
  return {
    shop,
    main,
    station,
    profileId,
    card,
    email,
    baskets,
    returnedBasket,
    paidBasket,
    order: await idOf(first.basketId as string),
    refundedOrder: await idOf(second.basketId as string),
  };
}

/** A signed-in consumer's cookie (`pc_me=...`), by a sign-in link's token. */
export async function signedIn(t: TestApp, email: string): Promise<string> {
  const [profile] = await profilesByEmail(t.database.db, email);
  if (!profile) throw new Error('no profile');
  const token = await issueSignIn(t.app.services.consumers, profile);
  const opened = await openSignIn(t.app.services.consumers, token ?? '');
  return `pc_me=${opened?.sessionId ?? ''}`;
}
