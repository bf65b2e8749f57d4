import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAIM_LEASE_MS, IDEMPOTENCY_TTL_MS } from '../../src/orders/idempotency.store.js';
import { findReceipt } from '../../src/receipts/receipt.store.js';
import { type TestApp, databases, startApp } from '../support/harness.js';
import {
  type CheckoutClient,
  expectLedgerSound,
  orderBody,
  setupCheckout,
  sign,
  writtenAtOnce,
} from './checkout-support.js';

describe.each(databases)('checkout v1 orders on %s', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  beforeAll(async () => {
    t = await startApp(kind);
    c = await setupCheckout(t);
  });
  afterAll(async () => {
    await expectLedgerSound(t);
    await t.close();
  });

  const balanceOf = async (card: string) =>
    (await c.call('GET', `/api/v1/profiles/${card}`)).json().balance as {
      availableAmount: number;
      totalAmount: number;
    };

  it('an order paid from balance is priced from the menu, charged, stored completed with a receipt URL', async () => {
    const p = await c.profile({ balance: 10_000 });
    const body = orderBody(
      c,
      p.card,
      [
        ['1001', 2],
        ['1002', 1],
      ],
      {
        totalGross: 920,
        balance: { requestCharge: true },
      },
    );
    const res = await c.order(body);
    expect(res.statusCode, res.body).toBe(200);
    const o = res.json();
    expect(o.totalGross).toBe(920);
    expect(o.status).toBe('completed');
    expect(o.receiptUrl).toMatch(/\/receipts\/[A-Za-z0-9_-]{22,}$/);
    expect(o.positions.map((x: { price: number }) => x.price)).toEqual([700, 220]);
    expect(o.balance).toEqual({ oldAmount: 10_000, newAmount: 9_080, currency: 'EUR' });
    expect(o.vats).toEqual([
      { rate: 7, gross: 220, net: 206, taxAmount: 14 },
      { rate: 19, gross: 700, net: 588, taxAmount: 112 },
    ]);
    expect((await balanceOf(p.card)).totalAmount).toBe(9_080);
  });

  it("an order's id, its refund's and their balance movements' ids begin with the time each was written: a later order's ids sort after an earlier one's", async () => {
    const p = await c.profile({ balance: 10_000 });
    const placed: { basketId: string; atMs: number }[] = [];
    for (let i = 0; i < 3; i++) {
      t.clock.ms += 1_000;
      const body = orderBody(c, p.card, [['1001', 1]], { totalGross: 350, balance: { requestCharge: true } });
      const res = await c.order(body);
      expect(res.statusCode, res.body).toBe(200);
      placed.push({ basketId: body.basketId as string, atMs: t.clock.ms });
    }
    const orders = await t.database.db
      .selectFrom('checkout_orders as o')
      .innerJoin('balance_transactions as b', 'b.order_id', 'o.id')
      .select(['o.id as orderId', 'b.id as transactionId', 'o.basket_id as basketId'])
      .where(
        'o.basket_id',
        'in',
        placed.map((x) => x.basketId),
      )
      .execute();
    expect(orders).toHaveLength(3);
    const hexTime = (id: string) => Number.parseInt(id.slice(4, 16), 16);
    for (const { basketId, atMs } of placed) {
      const row = orders.find((o) => o.basketId === basketId);
      expect(row?.orderId).toMatch(/^ord_[0-9a-f]{12}7[0-9a-f]{19}$/);
      expect(row?.transactionId).toMatch(/^btx_[0-9a-f]{12}7[0-9a-f]{19}$/);
      expect(hexTime(row?.orderId ?? '')).toBe(atMs);
      expect(hexTime(row?.transactionId ?? '')).toBe(atMs);
    }
    const byTime = placed.map((x) => orders.find((o) => o.basketId === x.basketId)?.orderId ?? '');
    expect([...byTime].sort()).toEqual(byTime);
    // A refund's id and its balance movement's, likewise.
    t.clock.ms += 1_000;
    const last = placed[placed.length - 1]?.basketId ?? '';
    const refund = await c.call('POST', `/api/v1/orders/${last}/refund`);
    expect(refund.statusCode, refund.body).toBe(200);
    const refundId: string = refund.json().refund.id;
    expect(refundId).toMatch(/^ref_[0-9a-f]{12}7[0-9a-f]{19}$/);
    expect(hexTime(refundId)).toBe(t.clock.ms);
    const movement = await t.database.db
      .selectFrom('balance_transactions')
      .select('id')
      .where('order_id', '=', orders.find((o) => o.basketId === last)?.orderId ?? '')
      .where('kind', '=', 'refund')
      .executeTakeFirstOrThrow();
    expect(hexTime(movement.id)).toBe(t.clock.ms);
  });

  it('takeaway (consumptionMode 1) takes TakeawayVatInPercent', async () => {
    const p = await c.profile();
    const res = await c.order(orderBody(c, p.card, [['1001', 1]], { totalGross: 350, consumptionMode: 1 }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().consumptionMode).toBe('Takeaway');
    expect(res.json().vats).toEqual([{ rate: 7, gross: 350, net: 327, taxAmount: 23 }]);
  });

  it('totalGross not equal to the computed total: 422 total_mismatch with the expected total, nothing booked', async () => {
    const p = await c.profile({ balance: 5_000 });
    const res = await c.order(
      orderBody(c, p.card, [['1003', 1]], { totalGross: 1_200, balance: { requestCharge: true } }),
    );
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('total_mismatch');
    expect(res.json().error.details.expectedTotalGross).toBe(1_299);
    expect((await balanceOf(p.card)).totalAmount).toBe(5_000);
  });

  it('unknown PLU, duplicate PLU and no price in the currency: 422 naming the position', async () => {
    const p = await c.profile();
    const unknown = await c.order(
      orderBody(
        c,
        p.card,
        [
          ['1001', 1],
          ['9999', 1],
        ],
        { totalGross: 350 },
      ),
    );
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().error).toMatchObject({
      code: 'unknown_plu',
      details: { positionId: 2, productPlu: '9999' },
    });
    const dup = await c.order(
      orderBody(
        c,
        p.card,
        [
          ['1001', 1],
          ['1001', 2],
        ],
        { totalGross: 350 },
      ),
    );
    expect(dup.statusCode).toBe(422);
    expect(dup.json().error).toMatchObject({ code: 'duplicate_plu', details: { positionId: 2 } });
    const chf = await c.order(orderBody(c, p.card, [['1002', 1]], { totalGross: 220, currency: 'CHF' }));
    expect(chf.statusCode).toBe(422);
    expect(chf.json().error).toMatchObject({ code: 'price_missing', details: { positionId: 1 } });
    const menu = await c.order(orderBody(c, p.card, [['1002', 1]], { totalGross: 220, menuId: 999_999 }));
    expect(menu.json().error.code).toBe('menu_unknown');
  });

  it('insufficient balance: 422 insufficient_balance, nothing booked, no order stored', async () => {
    const p = await c.profile({ balance: 100 });
    const body = orderBody(c, p.card, [['1003', 1]], { totalGross: 1_299, balance: { requestCharge: true } });
    const res = await c.order(body);
    expect(res.statusCode).toBe(422);
    expect(res.json().error.code).toBe('insufficient_balance');
    expect((await balanceOf(p.card)).totalAmount).toBe(100);
    const refund = await c.call('POST', `/api/v1/orders/${body.basketId as string}/refund`);
    expect(refund.statusCode).toBe(404);
  });

  it('the same basketId ordered again under another key: 409 order_exists', async () => {
    const p = await c.profile();
    const body = orderBody(c, p.card, [['1002', 1]], { totalGross: 220 });
    expect((await c.order(body)).statusCode).toBe(200);
    const again = await c.order(body);
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('order_exists');
  });

  it('a one-time password identifies the profile and is spent by the order that uses it', async () => {
    const p = await c.profile({ balance: 1_000 });
    const otp = await c.otp(p.id);
    expect((await c.call('GET', `/api/v1/profiles/${otp}`)).statusCode).toBe(200);
    const res = await c.order(
      orderBody(c, otp, [['1002', 1]], { totalGross: 220, balance: { requestCharge: true } }),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().balance.newAmount).toBe(780);
    const read = await c.call('GET', `/api/v1/profiles/${otp}`);
    expect(read.statusCode).toBe(404);
    expect(read.json().error.code).toBe('profile_not_found');
    const reuse = await c.order(orderBody(c, otp, [['1002', 1]], { totalGross: 220 }));
    expect(reuse.statusCode).toBe(422);
    expect(reuse.json().error.code).toBe('profile_not_found');
  });

  it('a refund gives the charge back and marks the order refunded; a second refund books nothing', async () => {
    const p = await c.profile({ balance: 2_000 });
    const body = orderBody(c, p.card, [['1003', 1]], { totalGross: 1_299, balance: { requestCharge: true } });
    expect((await c.order(body)).statusCode).toBe(200);
    expect((await balanceOf(p.card)).totalAmount).toBe(701);
    const r1 = await c.call('POST', `/api/v1/orders/${body.basketId as string}/refund`);
    expect(r1.statusCode, r1.body).toBe(200);
    expect(r1.json()).toEqual({
      basketId: body.basketId,
      status: 'refunded',
      refundedAmount: 1_299,
      refundableAmount: 0,
      currency: 'EUR',
      balance: { oldAmount: 701, newAmount: 2_000, currency: 'EUR' },
      refund: { id: r1.json().refund.id, amount: 1_299, positions: [], createdAt: expect.any(String) },
    });
    const r2 = await c.call('POST', `/api/v1/orders/${body.basketId as string}/refund`);
    expect(r2.statusCode).toBe(200);
    expect(r2.json()).toEqual({
      ...r1.json(),
      balance: { oldAmount: 2_000, newAmount: 2_000, currency: 'EUR' },
    });
    expect((await balanceOf(p.card)).totalAmount).toBe(2_000);
  });

  it('POST /baskets prices without storing anything and without balance and receiptUrl', async () => {
    const res = await c.call('POST', '/api/v1/baskets', {
      orderTimestamp: '2026-03-02T12:00:00Z',
      basketId: randomUUID(),
      menuId: c.menuId,
      positions: [{ positionId: 1, productPlu: '1004', quantity: 2.5 }],
      consumptionMode: 'Takeaway',
      currency: 'EUR',
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().totalGross).toBe(250);
    expect(res.json()).not.toHaveProperty('receiptUrl');
    expect(res.json()).not.toHaveProperty('balance');
  });

  describe('Security-Token, Timestamp and Idempotency-Key', () => {
    it('no Authorization, an unknown token, a revoked client: 401', async () => {
      const none = await t.app.inject({ method: 'GET', url: '/api/v1/profiles/x' });
      expect(none.statusCode).toBe(401);
      expect(none.json().error.code).toBe('unauthorized');
      const p = await c.profile();
      const bad = await c.order(orderBody(c, p.card, [['1002', 1]], { totalGross: 220 }), { token: 'nope' });
      expect(bad.statusCode).toBe(401);
    });

    it('a wrong Security-Token: 401 security_token_invalid, nothing booked', async () => {
      const p = await c.profile({ balance: 500 });
      const body = orderBody(c, p.card, [['1002', 1]], { totalGross: 220, balance: { requestCharge: true } });
      const ts = new Date(t.clock.nowMs()).toISOString();
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/orders',
        headers: {
          authorization: `Token ${c.accessToken}`,
          'content-type': 'application/json',
          'idempotency-key': 'k1',
          timestamp: ts,
          'security-token': 'a'.repeat(64),
        },
        payload: JSON.stringify(body),
      });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('security_token_invalid');
      expect((await balanceOf(p.card)).totalAmount).toBe(500);
    });

    it('a Timestamp more than 300 s from the server clock: 401; within, as ISO or Unix seconds: accepted', async () => {
      const p = await c.profile();
      const now = t.clock.nowMs();
      const late = await c.order(orderBody(c, p.card, [['1002', 1]], { totalGross: 220 }), {
        timestamp: new Date(now - 301_000).toISOString(),
      });
      expect(late.statusCode).toBe(401);
      expect(late.json().error.code).toBe('timestamp_invalid');
      const early = await c.order(orderBody(c, p.card, [['1002', 1]], { totalGross: 220 }), {
        timestamp: String(Math.floor((now + 301_000) / 1000)),
      });
      expect(early.statusCode).toBe(401);
      const unix = await c.order(orderBody(c, p.card, [['1002', 1]], { totalGross: 220 }), {
        timestamp: String(Math.floor((now - 290_000) / 1000)),
      });
      expect(unix.statusCode, unix.body).toBe(200);
    });

    it('no Idempotency-Key: 400 idempotency_key_missing', async () => {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/v1/orders',
        headers: { authorization: `Token ${c.accessToken}`, 'content-type': 'application/json' },
        payload: '{}',
      });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('idempotency_key_missing');
    });

    it('same key and body: the first answer replayed byte for byte with Idempotent-Replayed, charged once', async () => {
      const p = await c.profile({ balance: 1_000 });
      const body = orderBody(c, p.card, [['1002', 1]], { totalGross: 220, balance: { requestCharge: true } });
      const first = await c.order(body, { key: 'same-key' });
      t.clock.advance(5_000);
      const second = await c.order(body, { key: 'same-key' });
      expect(second.statusCode).toBe(200);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(second.body).toBe(first.body);
      expect((await balanceOf(p.card)).totalAmount).toBe(780);
      // A refusal is replayed too.
      const refused = orderBody(c, p.card, [['1002', 1]], { totalGross: 1 });
      const r1 = await c.order(refused, { key: 'refused-key' });
      const r2 = await c.order(refused, { key: 'refused-key' });
      expect([r1.statusCode, r2.statusCode]).toEqual([422, 422]);
      expect(r2.body).toBe(r1.body);
      expect(r2.headers['idempotent-replayed']).toBe('true');
    });

    it('same key, other body: 422 idempotency_key_reused; keys are per client and kept 24 h', async () => {
      const p = await c.profile();
      const a = orderBody(c, p.card, [['1002', 1]], { totalGross: 220 });
      const b = orderBody(c, p.card, [['1002', 1]], { totalGross: 220 });
      expect((await c.order(a, { key: 'reuse' })).statusCode).toBe(200);
      const other = await c.order(b, { key: 'reuse' });
      expect(other.statusCode).toBe(422);
      expect(other.json().error.code).toBe('idempotency_key_reused');
      t.clock.advance(24 * 3600_000 + 1);
      const later = await c.order(b, { key: 'reuse' });
      expect(later.statusCode, later.body).toBe(200);
      expect(later.headers['idempotent-replayed']).toBeUndefined();
    });

    /** A key taken by a request that has not answered: in flight under its claim, no answer. */
    const takenKey = async (key: string, raw: string, claim: string) => {
      const client = await t.database.db
        .selectFrom('checkout_clients')
        .select('id')
        .where('access_token_sha256', '=', createHash('sha256').update(c.accessToken).digest('hex'))
        .executeTakeFirstOrThrow();
      await t.database.db
        .insertInto('checkout_idempotency_keys')
        .values({
          client_id: client.id,
          key,
          request_sha256: createHash('sha256').update(raw).digest('hex'),
          status: 'in_flight',
          response_status: null,
          response_body: null,
          created_at: new Date(t.clock.nowMs()),
          expires_at: new Date(t.clock.nowMs() + IDEMPOTENCY_TTL_MS),
          claim,
        })
        .execute();
    };

    it('same key while the first is still running: 409 idempotency_key_in_flight', async () => {
      const p = await c.profile();
      const body = orderBody(c, p.card, [['1002', 1]], { totalGross: 220 });
      const raw = JSON.stringify(body);
      // The first request has taken the key and not answered yet.
      await takenKey('busy', raw, 'claim-of-the-first-request');
      const res = await c.order(body, { key: 'busy', raw });
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('idempotency_key_in_flight');
    });

    it('a key left in flight by an order that never finished is taken over by the same order once its claim has run out: charged once, then replayed', async () => {
      const p = await c.profile({ balance: 1_000 });
      const body = orderBody(c, p.card, [['1002', 1]], { totalGross: 220, balance: { requestCharge: true } });
      const raw = JSON.stringify(body);
      // What an order of the path of separate statements leaves when its server stops mid-request.
      await takenKey('left-behind', raw, 'claim-of-the-stopped-order');
      const early = await c.order(body, { key: 'left-behind', raw });
      expect([early.statusCode, early.json().error.code]).toEqual([409, 'idempotency_key_in_flight']);
      t.clock.advance(CLAIM_LEASE_MS);
      const retry = await c.order(body, { key: 'left-behind', raw });
      expect(retry.statusCode, retry.body).toBe(200);
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      const again = await c.order(body, { key: 'left-behind', raw });
      expect([again.statusCode, again.body, again.headers['idempotent-replayed']]).toEqual([
        200,
        retry.body,
        'true',
      ]);
      expect((await balanceOf(p.card)).totalAmount).toBe(780);
    });
  });

  it('the operator lists checkout clients without credentials and revokes one: its token answers 401 at once', async () => {
    const made = await t.admin('POST', `/merchants/${c.serviceUserName}/checkoutClients`, {
      name: 'Kiosk app',
    });
    expect(made.statusCode).toBe(201);
    const { id, accessToken } = made.json() as { id: number; accessToken: string };
    const list = await t.admin('GET', `/merchants/${c.serviceUserName}/checkoutClients?limit=100`);
    expect(list.json().data).toContainEqual(
      expect.objectContaining({ id, name: 'Kiosk app', revokedAt: null }),
    );
    expect(list.body).not.toContain(accessToken);
    const read = () =>
      t.app.inject({
        method: 'GET',
        url: '/api/v1/webhooks',
        headers: { authorization: `Token ${accessToken}` },
      });
    expect((await read()).statusCode).toBe(200);
    const revoked = await t.admin('POST', `/merchants/${c.serviceUserName}/checkoutClients/${id}/revoke`);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().revokedAt).not.toBeNull();
    expect((await read()).statusCode).toBe(401);
    expect(
      (await t.admin('POST', `/merchants/${c.serviceUserName}/checkoutClients/999999/revoke`)).statusCode,
    ).toBe(404);
  });

  it('the order’s receipt shows its positions with the article names, the VAT table, the balance payment and the status', async () => {
    const p = await c.profile({ balance: 1_000 });
    const body = orderBody(
      c,
      p.card,
      [
        ['1001', 1],
        ['1002', 2],
      ],
      { totalGross: 790, balance: { requestCharge: true } },
    );
    const res = await c.order(body);
    expect(res.statusCode).toBe(200);
    const receiptId = (res.json().receiptUrl as string).split('/').pop() ?? '';
    const ref = await findReceipt(t.database.db, receiptId);
    expect(ref?.kind).toBe('checkout_order');
    const source = t.app.services.receipts.sources.get('checkout_order');
    const view = await source?.load(t.database.db, ref?.merchantId ?? 0, ref?.sourceRef ?? '');
    expect(view).toMatchObject({
      currency: 'EUR',
      language: 'en',
      totalGrossMinor: 790,
      payments: [{ method: 'balance', amountMinor: 790 }],
      outlet: { name: 'Web shop', address: null },
      status: 'completed',
      positions: [
        { description: 'Article 1001', quantity: '1', weighed: false, grossMinor: 350, discountMinor: 0 },
        { description: 'Article 1002', quantity: '2', weighed: false, grossMinor: 440, discountMinor: 0 },
      ],
      vats: [
        { rateText: '7', grossMinor: 440, netMinor: 411, taxMinor: 29 },
        { rateText: '19', grossMinor: 350, netMinor: 294, taxMinor: 56 },
      ],
    });
  });

  it('a client of one merchant sees nothing of another: 404 as for an unknown reference', async () => {
    const other = await setupCheckout(t);
    const p = await c.profile({ balance: 100 });
    const res = await other.call('GET', `/api/v1/profiles/${p.card}`);
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('profile_not_found');
    const order = await other.order(orderBody(other, p.card, [['1002', 1]], { totalGross: 220 }));
    expect(order.statusCode).toBe(422);
    expect(order.json().error.code).toBe('profile_not_found');
  });

  // A merchant of their own: these tests change its menu and its time zone.
  describe('from remembered answers', () => {
    let m: CheckoutClient;
    beforeAll(async () => {
      m = await setupCheckout(t);
    });

    const totalOf = async (card: string) =>
      (await m.call('GET', `/api/v1/profiles/${card}`)).json().balance.totalAmount as number;
    const charged = (card: string, plu: string, totalGross: number, extra: Record<string, unknown> = {}) =>
      orderBody(m, card, [[plu, 1]], { totalGross, balance: { requestCharge: true }, ...extra });

    const setArticle = async (plu: string, price: number, vat: number) => {
      const res = await m.term.pos('PUT', `/sortiments/${m.menuId}/article/${plu}`, {
        body: {
          PLU: plu,
          Name: [{ lang: 'en', val: `Article ${plu}` }],
          Prices: [{ Value: price, CurrencyIso: 'EUR' }],
          VatInPercent: vat,
          TakeawayVatInPercent: vat,
        },
      });
      expect(res.statusCode, res.body).toBe(200);
    };

    it('a client revoked by another process: its next order answers 401 and books nothing, though this app remembers the client', async () => {
      const made = await t.admin('POST', `/merchants/${m.serviceUserName}/checkoutClients`, {
        name: 'Kiosk',
      });
      const { id, accessToken, securitySecret } = made.json() as {
        id: number;
        accessToken: string;
        securitySecret: string;
      };
      const kiosk = (body: unknown, key: string) => {
        const raw = JSON.stringify(body);
        const timestamp = new Date(t.clock.nowMs()).toISOString();
        return t.app.inject({
          method: 'POST',
          url: '/api/v1/orders',
          headers: {
            authorization: `Token ${accessToken}`,
            'content-type': 'application/json',
            'idempotency-key': key,
            timestamp,
            'security-token': sign(securitySecret, timestamp, key, raw),
          },
          payload: raw,
        });
      };
      const p = await m.profile({ balance: 1_000 });
      const first = await kiosk(charged(p.card, '1002', 220), 'before-revoke');
      expect(first.statusCode, first.body).toBe(200);
      // Another instance revokes it: this app's remembered answer still says the client is live.
      await t.database.db
        .updateTable('checkout_clients')
        .set({ revoked_at: new Date(t.clock.nowMs()) })
        .where('id', '=', id)
        .execute();
      const second = await kiosk(charged(p.card, '1002', 220), 'after-revoke');
      expect(second.statusCode, second.body).toBe(401);
      expect(second.json().error.code).toBe('unauthorized');
      expect(await totalOf(p.card)).toBe(780);
      const keys = await t.database.db
        .selectFrom('checkout_idempotency_keys')
        .select('key')
        .where('client_id', '=', id)
        .execute();
      expect(keys.map((k) => k.key)).not.toContain('after-revoke');
    });

    it('a price changed after an order was priced from the menu: the next order is priced from the menu as it is', async () => {
      const p = await m.profile({ balance: 5_000 });
      expect((await m.order(charged(p.card, '1003', 1299))).statusCode).toBe(200);
      await setArticle('1003', 13.49, 19);
      const old = await m.order(charged(p.card, '1003', 1299));
      expect(old.statusCode).toBe(422);
      expect(old.json().error).toMatchObject({
        code: 'total_mismatch',
        details: { expectedTotalGross: 1349 },
      });
      const now = await m.order(charged(p.card, '1003', 1349));
      expect(now.statusCode, now.body).toBe(200);
      expect(now.json().balance).toMatchObject({ oldAmount: 5_000 - 1299, newAmount: 5_000 - 1299 - 1349 });
    });

    it('a VAT rate changed at the same price: the next order shows the new rate (only the write re-checks the menu)', async () => {
      const p = await m.profile({ balance: 1_000 });
      const before = await m.order(charged(p.card, '1004', 100));
      expect(before.json().vats).toEqual([{ rate: 19, gross: 100, net: 84, taxAmount: 16 }]);
      await setArticle('1004', 1.0, 7);
      const after = await m.order(charged(p.card, '1004', 100));
      expect(after.statusCode, after.body).toBe(200);
      expect(after.json().vats).toEqual([{ rate: 7, gross: 100, net: 93, taxAmount: 7 }]);
    });

    it('a campaign of the checkout created after an order: the next order takes it', async () => {
      const p = await m.profile({ balance: 1_000 });
      expect((await m.order(charged(p.card, '1001', 350))).statusCode).toBe(200);
      const campaign = await t.admin(
        'POST',
        `/merchants/${encodeURIComponent(m.serviceUserName)}/campaigns`,
        {
          name: 'Ten off 1001',
          type: 'product',
          discount: { percent: 10 },
          products: [{ plu: '1001' }],
        },
      );
      expect(campaign.statusCode, campaign.body).toBe(201);
      const res = await m.order(charged(p.card, '1001', 315));
      expect(res.statusCode, res.body).toBe(200);
      expect(await totalOf(p.card)).toBe(1_000 - 350 - 315);
    });

    it('a price or a campaign changed after the app remembered the menu: the next order sent with the total its quote showed is written in one statement', async () => {
      const p = await m.profile();
      const { atOnce } = await writtenAtOnce(t, m);
      const first = await atOnce(p.card, [['1002', 1]], 220);
      expect(first?.status, first?.body).toBe(200);
      await setArticle('1002', 2.4, 7);
      const repriced = await atOnce(p.card, [['1002', 1]], 240);
      expect(repriced?.status, repriced?.body).toBe(200);
      const campaign = await t.admin(
        'POST',
        `/merchants/${encodeURIComponent(m.serviceUserName)}/campaigns`,
        {
          name: 'Ten off 1002',
          type: 'product',
          discount: { percent: 10 },
          products: [{ plu: '1002' }],
        },
      );
      expect(campaign.statusCode, campaign.body).toBe(201);
      const rewarded = await atOnce(p.card, [['1002', 1]], 216);
      expect(rewarded?.status, rewarded?.body).toBe(200);
      // A total no menu gives stays the separate statements' to refuse.
      expect(await atOnce(p.card, [['1002', 1]], 999)).toBeNull();
      expect([first, repriced, rewarded].map((a) => JSON.parse(a?.body ?? '{}').totalGross)).toEqual([
        220, 240, 216,
      ]);
      const u = encodeURIComponent(m.serviceUserName);
      expect((await t.admin('DELETE', `/merchants/${u}/campaigns/${campaign.json().id}`)).statusCode).toBe(
        200,
      );
      await setArticle('1002', 2.2, 7);
    });

    it("the merchant's time zone changed after the client was remembered: a time without offset is read in the new one", async () => {
      const p = await m.profile();
      const at = { orderTimestamp: '2026-03-02T12:00:00' };
      const berlin = await m.order(orderBody(m, p.card, [['1002', 1]], { totalGross: 220, ...at }));
      expect(berlin.json().orderTimestamp).toBe('2026-03-02T11:00:00.000Z');
      await t.database.db
        .updateTable('merchants')
        .set({ time_zone: 'UTC' })
        .where('service_user_name', '=', m.serviceUserName)
        .execute();
      const utc = await m.order(orderBody(m, p.card, [['1002', 1]], { totalGross: 220, ...at }));
      expect(utc.statusCode, utc.body).toBe(200);
      expect(utc.json().orderTimestamp).toBe('2026-03-02T12:00:00.000Z');
    });
  });
});
