import { createHash, createHmac, randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import type { Kysely } from 'kysely';
import { verifyLedger } from '../../src/ledger/ledger-verify.store.js';
import { placeOrderAtOnce } from '../../src/orders/order-at-once.js';
import type { OrderOutcome, OrderWrite, OrderWriter } from '../../src/orders/order-write.store.js';
import type { CheckoutCaller, OrderInput } from '../../src/orders/order.service.js';
import type { DB } from '../../src/store/schema.js';
import { type TestApp, type Terminal, setupTerminal, sortimentIdOf } from '../support/harness.js';

/** An article of the test menu: PLU, unit price (major units), VAT on premise and takeaway. */
export interface MenuArticle {
  plu: string;
  price: number;
  vat: number;
  takeawayVat: number;
}

export const MENU: MenuArticle[] = [
  { plu: '1001', price: 3.5, vat: 19, takeawayVat: 7 },
  { plu: '1002', price: 2.2, vat: 7, takeawayVat: 7 },
  { plu: '1003', price: 12.99, vat: 19, takeawayVat: 19 },
  { plu: '1004', price: 1.0, vat: 19, takeawayVat: 7 },
];

export interface CheckoutClient {
  readonly term: Terminal;
  readonly serviceUserName: string;
  readonly accessToken: string;
  readonly securitySecret: string;
  readonly menuId: number;
  /** A checkout call with `Authorization: Token`. */
  call(
    method: string,
    url: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<LightMyRequestResponse>;
  /** POST /api/v1/orders, signed; `key` defaults to a fresh Idempotency-Key. */
  order(
    body: unknown,
    options?: { key?: string; timestamp?: string; token?: string; raw?: string },
  ): Promise<LightMyRequestResponse>;
  /** A profile with a linked customer card (its id is the profileReference) and a balance. */
  profile(options?: {
    balance?: number;
    balanceConfig?: Record<string, unknown>;
  }): Promise<{ id: number; card: string }>;
  otp(profileId: number): Promise<string>;
}

export function sign(secret: string, timestamp: string, key: string, body: string): string {
  return createHmac('sha256', secret)
    .update(`${timestamp}\n${key}\n`)
    .update(Buffer.from(body, 'utf8'))
    .digest('hex');
}

/** What a checkout client signs its calls with. */
export interface ClientCredentials {
  readonly accessToken: string;
  readonly securitySecret: string;
}

/**
 * POST /api/v1/orders as a checkout client sends it: its token, an Idempotency-Key (fresh unless
 * given), the clock's time and the Security-Token over them and the body.
 */
export function signedOrder(
  t: TestApp,
  client: ClientCredentials,
  body: unknown,
  o: { key?: string; timestamp?: string; token?: string; raw?: string } = {},
): Promise<LightMyRequestResponse> {
  const raw = o.raw ?? JSON.stringify(body);
  const key = o.key ?? randomUUID();
  const timestamp = o.timestamp ?? new Date(t.clock.nowMs()).toISOString();
  return t.app.inject({
    method: 'POST',
    url: '/api/v1/orders',
    headers: {
      authorization: `Token ${o.token ?? client.accessToken}`,
      'content-type': 'application/json; charset=utf-8',
      'idempotency-key': key,
      timestamp,
      'security-token': sign(client.securitySecret, timestamp, key, raw),
    },
    payload: raw,
  });
}

/** A merchant with a terminal (to write the menu), a checkout client and the test menu. */
export async function setupCheckout(
  t: TestApp,
  options: { timeZone?: string } = {},
): Promise<CheckoutClient> {
  const term = await setupTerminal(t, { timeZone: options.timeZone ?? 'Europe/Berlin' });
  const sid = await sortimentIdOf(term, 'menu');
  for (const a of MENU) {
    const r = await term.pos('POST', `/sortiments/${sid}/article/${a.plu}`, {
      body: {
        PLU: a.plu,
        Name: [{ lang: 'en', val: `Article ${a.plu}` }],
        Prices: [{ Value: a.price, CurrencyIso: 'EUR' }],
        VatInPercent: a.vat,
        TakeawayVatInPercent: a.takeawayVat,
      },
    });
    if (r.statusCode !== 200) throw new Error(`article: ${r.body}`);
  }
  const c = await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/checkoutClients`, {
    name: 'Web shop',
  });
  if (c.statusCode !== 201) throw new Error(`client: ${c.body}`);
  const { accessToken, securitySecret } = c.json() as { accessToken: string; securitySecret: string };
  const call: CheckoutClient['call'] = (method, url, body, headers = {}) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: {
        authorization: `Token ${accessToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json; charset=utf-8' }),
        ...headers,
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
  return {
    term,
    serviceUserName: term.serviceUserName,
    accessToken,
    securitySecret,
    menuId: Number(sid),
    call,
    order(body, o = {}) {
      return signedOrder(t, { accessToken, securitySecret }, body, o);
    },
    async profile(o = {}) {
      const p = await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/profiles`, {
        fullName: 'Ada Lovelace',
        language: 'en',
        tags: ['vip'],
        ...(o.balanceConfig ? { balanceConfig: o.balanceConfig } : {}),
      });
      if (p.statusCode !== 201) throw new Error(`profile: ${p.body}`);
      const id = (p.json() as { id: number }).id;
      const card = `card-${randomUUID().slice(0, 12)}`;
      const l = await t.admin('POST', `/profiles/${id}/tokens`, { tokenId: card });
      if (l.statusCode !== 200) throw new Error(`link: ${l.body}`);
      if (o.balance && o.balance > 0) {
        const r = await call('POST', `/api/v1/profiles/${card}/topUps`, {
          amount: o.balance,
          currency: 'EUR',
        });
        if (r.statusCode !== 201) throw new Error(`top-up: ${r.body}`);
      }
      return { id, card };
    },
    async otp(profileId) {
      const r = await t.admin('POST', `/profiles/${profileId}/otps`);
      return (r.json() as { otp: string }).otp;
    },
  };
}

/** An order body of the test menu: positions as [plu, quantity]. */
export function orderBody(
  c: CheckoutClient,
  profileReference: string,
  positions: [string, number][],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    orderTimestamp: '2026-03-02T12:00:00Z',
    basketId: randomUUID(),
    profileReference,
    menuId: c.menuId,
    positions: positions.map(([plu, quantity], i) => ({ positionId: i + 1, productPlu: plu, quantity })),
    consumptionMode: 'OnPremise',
    currency: 'EUR',
    totalGross: 0,
    ...extra,
  };
}

/**
 * An order of `positions` for the card's profile, totalling `total` and charged to its balance when
 * `charge` says so, placed through the web shop `c`, or signed by another checkout client `via`
 * (200); answers its basketId.
 */
export async function placeOrder(
  t: TestApp,
  c: CheckoutClient,
  via: ClientCredentials | null,
  card: string,
  positions: [string, number][],
  total: number,
  charge: boolean,
): Promise<string> {
  const body = orderBody(c, card, positions, {
    totalGross: total,
    ...(charge ? { balance: { requestCharge: true } } : {}),
  });
  const res = via ? await signedOrder(t, via, body) : await c.order(body);
  if (res.statusCode !== 200) throw new Error(`order: ${res.statusCode} ${res.body}`);
  return body.basketId as string;
}

/** The ledger keeps every rule (npm run ledger:verify). */
/** Tops up the balance of the profile of the customer card `card` by `amount` minor units (201). */
export async function topUp(c: CheckoutClient, card: string, amount: number): Promise<void> {
  const res = await c.call('POST', `/api/v1/profiles/${card}/topUps`, { amount, currency: 'EUR' });
  if (res.statusCode !== 201) throw new Error(`top-up: ${res.statusCode} ${res.body}`);
}

export async function expectLedgerSound(t: TestApp): Promise<void> {
  const report = await verifyLedger(t.database.db);
  if (!report.ok) throw new Error(`ledger: ${report.violations.join('; ')}`);
}

/** The client as the checkout's use cases see it once authenticated. */
export async function callerOf(t: TestApp, c: CheckoutClient): Promise<CheckoutCaller> {
  const client = await t.database.db
    .selectFrom('checkout_clients as k')
    .innerJoin('merchants as m', 'm.id', 'k.merchant_id')
    .select(['k.id', 'k.merchant_id', 'm.time_zone'])
    .where('k.access_token_sha256', '=', createHash('sha256').update(c.accessToken).digest('hex'))
    .executeTakeFirstOrThrow();
  return { clientId: client.id, merchantId: client.merchant_id, timeZone: client.time_zone };
}

/**
 * Orders of the shop `m` by the route's one-statement way (`placeOrderAtOnce`; null: it left the
 * order to the separate statements); with `hold`, their writes are held until `release` gives them
 * to the order writer in one turn: one batch.
 */
export async function writtenAtOnce(t: TestApp, m: CheckoutClient) {
  const caller = await callerOf(t, m);
  const deps = t.app.services.checkout;
  const held: { write: OrderWrite; settle: (o: Promise<OrderOutcome>) => void }[] = [];
  const holding = {
    place: (write: OrderWrite) => new Promise<OrderOutcome>((settle) => held.push({ write, settle })),
  } as unknown as OrderWriter;
  const atOnce = (
    card: string,
    positions: [string, number][],
    totalGross: number,
    hold = false,
    extra: Record<string, unknown> = {},
  ) => {
    const body = orderBody(m, card, positions, { totalGross, ...extra });
    const signed = {
      idempotencyKey: randomUUID(),
      bodySha256: createHash('sha256').update(JSON.stringify(body)).digest('hex'),
    };
    const via = hold ? { ...deps, orders: holding } : deps;
    return placeOrderAtOnce(via, caller, body as unknown as OrderInput, signed, 'req');
  };
  /** Waits until `count` writes are held: those orders are priced, none of them written. */
  const prepared = async (count: number) => {
    for (let waited = 0; held.length < count; waited++) {
      if (waited > 500) throw new Error(`only ${held.length} of ${count} orders were prepared`);
      await new Promise((r) => setTimeout(r, 10));
    }
  };
  /** Waits until `count` writes are held, then gives them to the order writer at once. */
  const release = async (count: number) => {
    await prepared(count);
    for (const h of held.splice(0)) h.settle(deps.orders.place(h.write));
  };
  return { atOnce, prepared, release, held };
}

/**
 * Orders written at once, counted: booked (200), left to the separate statements (null), and any
 * other answer. A batch holds its writes in the order their pricing finished, so which of two
 * alike orders is booked first is not known; their counts are.
 */
export function placedAndLeft(answers: readonly ({ readonly status: number } | null)[]) {
  const placed = answers.filter((a) => a?.status === 200).length;
  const left = answers.filter((a) => a === null).length;
  return { placed, left, other: answers.length - placed - left };
}

/** What a profile's top-ups booked: balance transactions, ledger transfers and webhook messages. */
export async function bookedTopUps(db: Kysely<DB>, card: string) {
  const link = await db
    .selectFrom('cards')
    .select('profile_id')
    .where('token_id', '=', card)
    .executeTakeFirstOrThrow();
  const profileId = link.profile_id ?? -1;
  const txs = await db
    .selectFrom('balance_transactions')
    .select(['id', 'amount_minor'])
    .where('profile_id', '=', profileId)
    .where('kind', '=', 'top_up')
    .execute();
  const ids = txs.map((x) => x.id);
  const transfers =
    ids.length === 0
      ? []
      : await db
          .selectFrom('ledger_transfers')
          .select('id')
          .where(
            'transaction_id',
            'in',
            ids.map((id) => `top_up:${id}`),
          )
          .execute();
  const messages = (
    await db.selectFrom('outbox_messages').select('payload').where('topic', '=', 'webhook.delivery').execute()
  ).filter((m) =>
    ids.includes(
      String((m.payload as { body?: { data?: { transactionId?: unknown } } }).body?.data?.transactionId),
    ),
  );
  return { transactions: txs.length, transfers: transfers.length, webhooks: messages.length };
}
