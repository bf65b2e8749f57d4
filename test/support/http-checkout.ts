import { createHmac, randomUUID } from 'node:crypto';
import { type HttpAnswer, type HttpClient, setupTerminalHttp } from './http-pos.js';

/**
 * A checkout v1 client over real HTTP (for the concurrency tests and the benchmarks): a merchant
 * with a one-article menu (PLU "P1" at 1.00, 19 %), a checkout client, funded profiles, signed
 * orders. It imports nothing of the test runner.
 */
export interface CheckoutIdentity {
  readonly serviceUserName: string;
  readonly accessToken: string;
  readonly securitySecret: string;
  readonly menuId: number;
}

function ok(answer: HttpAnswer, status: number, what: string): void {
  if (answer.status !== status)
    throw new Error(`${what}: HTTP ${answer.status} ${JSON.stringify(answer.body)}`);
}

/** An article of the menu beyond P1: its PLU, gross price in minor units and VAT rate. */
export interface MenuArticle {
  readonly plu: string;
  readonly priceMinor: number;
  readonly vat: number;
}

export async function setupCheckoutHttp(
  client: HttpClient,
  serviceUserName: string,
  more: readonly MenuArticle[] = [],
): Promise<CheckoutIdentity> {
  const who = await setupTerminalHttp(client, serviceUserName);
  const s = await client.pos(who, 'GET', '/sortiments', { query: { thirdPartySortimentIdentifier: 'menu' } });
  ok(s, 200, 'sortiment');
  const menuId = Number((s.body as { serviceSortimentId: string }).serviceSortimentId);
  ok(
    await client.pos(who, 'POST', `/sortiments/${menuId}/article/P1`, {
      body: {
        PLU: 'P1',
        Name: [{ lang: 'en', val: 'Coffee' }],
        Prices: [{ Value: 1.0, CurrencyIso: 'EUR' }],
        VatInPercent: 19,
        TakeawayVatInPercent: 7,
      },
    }),
    200,
    'article',
  );
  for (const m of more) {
    ok(
      await client.pos(who, 'POST', `/sortiments/${menuId}/article/${m.plu}`, {
        body: {
          PLU: m.plu,
          Name: [{ lang: 'en', val: `Article ${m.plu}` }],
          Prices: [{ Value: m.priceMinor / 100, CurrencyIso: 'EUR' }],
          VatInPercent: m.vat,
          TakeawayVatInPercent: 7,
        },
      }),
      200,
      `article ${m.plu}`,
    );
  }
  const c = await client.admin('POST', `/merchants/${encodeURIComponent(serviceUserName)}/checkoutClients`, {
    name: 'Shop',
  });
  ok(c, 201, 'checkout client');
  const { accessToken, securitySecret } = c.body as { accessToken: string; securitySecret: string };
  return { serviceUserName, accessToken, securitySecret, menuId };
}

export function checkoutCall(
  client: HttpClient,
  who: CheckoutIdentity,
  method: string,
  path: string,
  body?: unknown,
): Promise<HttpAnswer> {
  return client.call(method, path, { authorization: `Token ${who.accessToken}` }, body);
}

/** A profile with a linked card holding `balanceMinor`; answers the card id (its profileReference). */
export async function fundedProfile(
  client: HttpClient,
  who: CheckoutIdentity,
  balanceMinor: number,
): Promise<string> {
  const p = await client.admin('POST', `/merchants/${encodeURIComponent(who.serviceUserName)}/profiles`, {
    fullName: 'Hot profile',
  });
  ok(p, 201, 'profile');
  const id = (p.body as { id: number }).id;
  const card = `card-${randomUUID().slice(0, 12)}`;
  ok(await client.admin('POST', `/profiles/${id}/tokens`, { tokenId: card }), 200, 'link');
  if (balanceMinor > 0) {
    ok(
      await checkoutCall(client, who, 'POST', `/api/v1/profiles/${card}/topUps`, {
        amount: balanceMinor,
        currency: 'EUR',
      }),
      201,
      'top-up',
    );
  }
  return card;
}

/** The body of an order of `quantity` coffees paid from the balance. */
export function coffeeOrder(
  who: CheckoutIdentity,
  reference: string,
  quantity: number,
  reservation?: { reference: string; cancelRemainingAmount?: boolean },
): Record<string, unknown> {
  return {
    orderTimestamp: new Date().toISOString(),
    basketId: randomUUID(),
    profileReference: reference,
    menuId: who.menuId,
    positions: [{ positionId: 1, productPlu: 'P1', quantity }],
    consumptionMode: 'OnPremise',
    currency: 'EUR',
    totalGross: quantity * 100,
    balance: { requestCharge: true, ...(reservation ? { reservation } : {}) },
  };
}

/** POST /api/v1/orders, signed with the client's securitySecret. */
export async function signedOrder(
  client: HttpClient,
  who: CheckoutIdentity,
  body: Record<string, unknown>,
  key: string = randomUUID(),
): Promise<
  HttpAnswer & {
    replayed: boolean;
    text: string;
    retryAfter: string | undefined;
    requestId: string | undefined;
  }
> {
  const text = JSON.stringify(body);
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', who.securitySecret)
    .update(`${timestamp}\n${key}\n`)
    .update(Buffer.from(text, 'utf8'))
    .digest('hex');
  const res = await client.raw(
    'POST',
    '/api/v1/orders',
    {
      authorization: `Token ${who.accessToken}`,
      'content-type': 'application/json; charset=utf-8',
      'idempotency-key': key,
      timestamp,
      'security-token': signature,
    },
    text,
  );
  const retryAfter = res.headers['retry-after'];
  const requestId = res.headers['request-id'];
  return {
    status: res.status,
    body: res.text === '' ? null : (JSON.parse(res.text) as unknown),
    text: res.text,
    replayed: res.headers['idempotent-replayed'] === 'true',
    retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined,
    requestId: typeof requestId === 'string' ? requestId : undefined,
  };
}
