import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AdminClient,
  type Basket,
  type OrderRequest,
  CheckoutClient,
  PosClient,
  type Terminal,
  WebhookVerificationError,
  createArticle,
  getSortiment,
  updateTrackingUnitSettings,
  verifyWebhook,
} from '../../clients/typescript/src/index.js';
import { standardWebhookSignature } from '../../src/webhooks/webhook-delivery.js';
import { ADMIN_TOKEN, type TestApp, databases, startApp } from '../support/harness.js';

describe('verifyWebhook', () => {
  const secret = `whsec_${Buffer.from('0123456789abcdef01234567').toString('base64')}`;
  const body = JSON.stringify({
    type: 'transaction.status.changed',
    timestamp: '2026-03-02T12:00:00Z',
    data: {},
  });
  const nowMs = 1_772_452_800_000;
  const headers = (timestamp: number, text = body) => ({
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardWebhookSignature(secret, 'msg_1', timestamp, text),
  });

  it('accepts the signature the service sends, over the bytes as received, and answers the event', () => {
    const event = verifyWebhook(secret, headers(nowMs / 1000), Buffer.from(body), { nowMs });
    expect(event.type).toBe('transaction.status.changed');
    expect(verifyWebhook(secret, new Headers(headers(nowMs / 1000)), body, { nowMs }).type).toBe(
      'transaction.status.changed',
    );
  });

  it('refuses a changed body, another secret, a timestamp beyond 300 s and missing headers', () => {
    const at = nowMs / 1000;
    expect(() => verifyWebhook(secret, headers(at), `${body} `, { nowMs })).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(`whsec_${'A'.repeat(32)}`, headers(at), body, { nowMs })).toThrow(
      /no webhook-signature/,
    );
    expect(() => verifyWebhook(secret, headers(at - 301), body, { nowMs })).toThrow(/tolerance/);
    expect(() => verifyWebhook(secret, { 'webhook-id': 'msg_1' }, body, { nowMs })).toThrow(/required/);
  });
});

describe.each(databases)('the client package against the service on %s', (kind) => {
  let t: TestApp;
  let baseUrl: string;
  let admin: AdminClient;
  let devKey: string;
  let terminal: Terminal;
  let menuId: number;
  const merchant = `shop-${kind}-${Date.now()}`;
  // The clients sign with the app's time (TEST_CLOCK_START may set it apart from the machine's),
  // moving on with the real time as a till's or a shop's clock does.
  let offsetMs = 0;
  const clientClock = () => Date.now() + offsetMs;

  beforeAll(async () => {
    t = await startApp(kind);
    offsetMs = t.clock.ms - Date.now();
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    admin = new AdminClient({ baseUrl, token: ADMIN_TOKEN });
    devKey = (await admin.createDevKey('Till vendor')).devKey;
    await admin.createMerchant({ serviceUserName: merchant, displayName: 'Shop', currency: 'EUR' });
    const { brandId } = await admin.createBrand(merchant, 'Shop');
    const pos = new PosClient({ baseUrl, devKey });
    const outlet = await pos.createOutlet(merchant, brandId, { Name: 'Main' });
    terminal = await pos.registerTerminal({
      serviceUserName: merchant,
      outletId: outlet.Id,
      instanceName: 'T1',
    });
    await admin.activateTerminal(terminal.trackingUnitId);
    const till = pos.forTerminal(terminal);
    const menu = await getSortiment({
      client: till.client,
      query: { thirdPartySortimentIdentifier: 'web' },
      throwOnError: true,
    });
    menuId = menu.data.menuId;
    await createArticle({
      client: till.client,
      path: { serviceSortimentId: menu.data.serviceSortimentId, PLU: 'P1' },
      body: {
        PLU: 'P1',
        Name: [{ lang: 'en', val: 'Coffee' }],
        Prices: [{ Value: 2.5, CurrencyIso: 'EUR' }],
        VatInPercent: 19,
        TakeawayVatInPercent: 7,
      },
      throwOnError: true,
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('CheckoutClient: an order whose answer was lost is sent again under the same Idempotency-Key, signed anew, and charged once', async () => {
    const card = `CARD-${merchant}`;
    await admin.linkCard((await admin.createProfile(merchant, {})).id, { tokenId: card, tokenType: 0 });
    const credentials = await admin.createCheckoutClient(merchant, 'Web shop');
    const sent: { key: string | null; token: string | null; timestamp: string | null }[] = [];
    let loseNext = true;
    const losingFetch: typeof fetch = async (input, init) => {
      const request = input instanceof Request ? input : new Request(input, init);
      const answer = await fetch(request);
      if (!new URL(request.url).pathname.endsWith('/orders')) return answer;
      sent.push({
        key: request.headers.get('Idempotency-Key'),
        token: request.headers.get('Security-Token'),
        timestamp: request.headers.get('Timestamp'),
      });
      if (loseNext) {
        loseNext = false;
        await answer.body?.cancel();
        throw new TypeError('fetch failed: the connection was reset');
      }
      return answer;
    };
    const shop = new CheckoutClient({
      baseUrl,
      ...credentials,
      fetch: losingFetch,
      retryDelayMs: 1100,
      clock: clientClock,
    });
    await shop.topUp(card, { amount: 1000, currency: 'EUR' });
    const request: OrderRequest = {
      orderTimestamp: new Date(clientClock()).toISOString(),
      basketId: crypto.randomUUID(),
      profileReference: card,
      menuId,
      positions: [{ positionId: 1, productPlu: 'P1', quantity: 2 }],
      consumptionMode: 'Takeaway',
      currency: 'EUR',
      totalGross: 500,
      balance: { requestCharge: true },
    };
    const order = await shop.createOrder(request);
    expect(order.balance).toMatchObject({ oldAmount: 1000, newAmount: 500 });
    expect(sent).toHaveLength(2);
    expect(sent[1]?.key).toBe(sent[0]?.key);
    expect(sent[0]?.token).toMatch(/^[0-9a-f]{64}$/);
    // A second later: a new Timestamp, so a new signature over the same bytes.
    expect(sent[1]?.timestamp).not.toBe(sent[0]?.timestamp);
    expect(sent[1]?.token).not.toBe(sent[0]?.token);
    expect((await shop.readProfile(card)).balance.totalAmount).toBe(500);
    // The lists, read page after page (one item per page here).
    const kinds: string[] = [];
    for await (const transaction of shop.transactions(card, { limit: 1 })) kinds.push(transaction.kind);
    expect(kinds.sort()).toEqual(['charge', 'top_up']);
    const orders: string[] = [];
    for await (const placed of shop.orders(card, { limit: 1 })) orders.push(placed.basketId);
    expect(orders).toEqual([order.basketId]);

    // The refusals of the order itself are not retried: they are the answer.
    await expect(
      shop.createOrder({ ...request, basketId: crypto.randomUUID(), totalGross: 499 }),
    ).rejects.toMatchObject({ status: 422, code: 'total_mismatch' });
  });

  it('PosClient with SecurityToken-V2: a terminal switched to V2 grants and books signed requests; its MD5 token is refused', async () => {
    await updateTrackingUnitSettings({
      client: admin.client,
      path: { trackingUnitId: terminal.trackingUnitId },
      body: { requireSecurityTokenV2: true },
      throwOnError: true,
    });
    const basket: Basket = {
      Timestamp: new Date(clientClock()).toISOString(),
      HasDiscounts: false,
      CurrencyISO: 'EUR',
      Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 1, CurrentGrossPrice: 2.5 }],
    };
    const md5 = new PosClient({ baseUrl, devKey, terminal, clock: clientClock });
    const v2 = new PosClient({ baseUrl, devKey, terminal, signing: 'v2', gzip: true, clock: clientClock });
    await v2.uploadBasket('V2-1', basket);
    await expect(md5.grantBasket('V2-1')).rejects.toMatchObject({ status: 401, errorId: 1044 });
    expect(await v2.grantBasket('V2-1')).toMatchObject({ BasketId: 'V2-1', Granted: true });
    await v2.registerToken('GIFT-V2', 'gift');
    expect(await v2.addBalance('GIFT-V2', '12.50', 'till-1')).toMatchObject({ Balance: 12.5 });
    // The same transactionId again: signed anew, booked once.
    expect(await v2.addBalance('GIFT-V2', '12.50', 'till-1')).toMatchObject({ Balance: 12.5 });
    const wrong = new PosClient({
      baseUrl,
      devKey,
      terminal: { ...terminal, checksumSecret: 'x' },
      signing: 'v2',
      clock: clientClock,
    });
    await expect(wrong.withdrawBalance('GIFT-V2', '1.00')).rejects.toMatchObject({
      status: 401,
      errorId: 1045,
    });
  });
});
