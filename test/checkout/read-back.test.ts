import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type CheckoutClient, expectLedgerSound, orderBody, setupCheckout } from './checkout-support.js';

interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** Every page of a list, following nextCursor. */
async function allPages<T>(c: CheckoutClient, url: string, limit: number): Promise<T[][]> {
  const pages: T[][] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 50; i++) {
    const sep = url.includes('?') ? '&' : '?';
    const res = await c.call(
      'GET',
      `${url}${sep}limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json() as Page<T>;
    pages.push(page.data);
    expect(page.hasMore).toBe(page.nextCursor !== null);
    if (!page.hasMore) return pages;
    cursor = page.nextCursor;
  }
  throw new Error('more than 50 pages');
}

describe.each(databases)(
  'checkout v1: orders read back and listed, balance transactions listed, on %s',
  (kind) => {
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

    it('GET /orders/{basketId} answers the order as placed, with its state, what was refunded and its refunds', async () => {
      const p = await c.profile({ balance: 5_000 });
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
      const placed = await c.order(body);
      expect(placed.statusCode, placed.body).toBe(200);
      const read = await c.call('GET', `/api/v1/orders/${body.basketId as string}`);
      expect(read.statusCode, read.body).toBe(200);
      const o = read.json();
      const { status: _status, ...asPlaced } = placed.json();
      expect(o).toMatchObject(asPlaced);
      expect(o.status).toBe('completed');
      expect(o.refundedAmount).toBe(0);
      expect(o.refundableAmount).toBe(920);
      expect(o.refunds).toEqual([]);
      expect(o.balance).toEqual({ oldAmount: 5_000, newAmount: 4_080, currency: 'EUR' });
      expect(Date.parse(o.createdAt)).toBe(t.clock.nowMs());
    });

    it('an order not paid from the balance reads back without balance and with nothing refundable', async () => {
      const p = await c.profile();
      const body = orderBody(c, p.card, [['1002', 1]], { totalGross: 220 });
      expect((await c.order(body)).statusCode).toBe(200);
      const o = (await c.call('GET', `/api/v1/orders/${body.basketId as string}`)).json();
      expect(o).not.toHaveProperty('balance');
      expect(o.refundableAmount).toBe(0);
      expect(o.status).toBe('completed');
    });

    it("an unknown basketId, or another merchant's order: 404 order_not_found", async () => {
      const res = await c.call('GET', '/api/v1/orders/6f9619ff-8b86-d011-b42d-00cf4fc964ff');
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('order_not_found');
      const other = await setupCheckout(t);
      const p = await c.profile();
      const body = orderBody(c, p.card, [['1002', 1]], { totalGross: 220 });
      expect((await c.order(body)).statusCode).toBe(200);
      const foreign = await other.call('GET', `/api/v1/orders/${body.basketId as string}`);
      expect(foreign.statusCode).toBe(404);
    });

    it("a profile's orders page through more than one page, newest first, each once, stable under inserts", async () => {
      const p = await c.profile({ balance: 10_000 });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        const body = orderBody(c, p.card, [['1002', 1]], { totalGross: 220 });
        expect((await c.order(body)).statusCode).toBe(200);
        ids.push(body.basketId as string);
        t.clock.advance(1_000);
      }
      const first = await c.call('GET', `/api/v1/profiles/${p.card}/orders?limit=2`);
      expect(first.statusCode, first.body).toBe(200);
      const page1 = first.json() as Page<{ basketId: string }>;
      expect(page1.data.map((o) => o.basketId)).toEqual([ids[4], ids[3]]);
      expect(page1.hasMore).toBe(true);
      // A newer order placed between two pages does not shift the next page.
      const newer = orderBody(c, p.card, [['1002', 1]], { totalGross: 220 });
      expect((await c.order(newer)).statusCode).toBe(200);
      const next = await c.call(
        'GET',
        `/api/v1/profiles/${p.card}/orders?limit=2&cursor=${encodeURIComponent(page1.nextCursor ?? '')}`,
      );
      expect((next.json() as Page<{ basketId: string }>).data.map((o) => o.basketId)).toEqual([
        ids[2],
        ids[1],
      ]);
      const pages = await allPages<{ basketId: string }>(c, `/api/v1/profiles/${p.card}/orders`, 2);
      expect(pages.length).toBe(3);
      expect(pages.flat().map((o) => o.basketId)).toEqual([newer.basketId, ...ids.slice().reverse()]);
    });

    it('orders and transactions filtered by createdFrom (inclusive) and createdTo (exclusive)', async () => {
      const p = await c.profile();
      const times: number[] = [];
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        times.push(t.clock.nowMs());
        const top = await c.call('POST', `/api/v1/profiles/${p.card}/topUps`, {
          amount: 100 + i,
          currency: 'EUR',
        });
        expect(top.statusCode).toBe(201);
        const body = orderBody(c, p.card, [['1002', 1]], { totalGross: 220 });
        expect((await c.order(body)).statusCode).toBe(200);
        ids.push(body.basketId as string);
        t.clock.advance(60_000);
      }
      const from = new Date(times[1] ?? 0).toISOString();
      const to = new Date(times[2] ?? 0).toISOString();
      const orders = await c.call(
        'GET',
        `/api/v1/profiles/${p.card}/orders?createdFrom=${from}&createdTo=${to}`,
      );
      expect(orders.statusCode, orders.body).toBe(200);
      expect(orders.json().data.map((o: { basketId: string }) => o.basketId)).toEqual([ids[1]]);
      const txs = await c.call('GET', `/api/v1/profiles/${p.card}/transactions?createdFrom=${from}`);
      expect(txs.statusCode, txs.body).toBe(200);
      expect(txs.json().data.map((x: { kind: string; amount: number }) => `${x.kind} ${x.amount}`)).toEqual([
        'top_up 102',
        'top_up 101',
      ]);
      const bad = await c.call('GET', `/api/v1/profiles/${p.card}/orders?createdFrom=yesterday`);
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe('invalid_request');
      const reversed = await c.call(
        'GET',
        `/api/v1/profiles/${p.card}/orders?createdFrom=${to}&createdTo=${from}`,
      );
      expect(reversed.statusCode).toBe(400);
    });

    it('balance transactions page through more than one page with their status, basketId and reservation', async () => {
      const p = await c.profile({ balance: 3_000 });
      const body = orderBody(c, p.card, [['1002', 1]], { totalGross: 220, balance: { requestCharge: true } });
      expect((await c.order(body)).statusCode).toBe(200);
      const r = await c.call('POST', `/api/v1/profiles/${p.card}/reservations`, {
        amount: 500,
        currency: 'EUR',
      });
      expect(r.statusCode).toBe(201);
      expect((await c.call('POST', `/api/v1/orders/${body.basketId as string}/refund`)).statusCode).toBe(200);
      const pages = await allPages<Record<string, unknown>>(c, `/api/v1/profiles/${p.card}/transactions`, 2);
      expect(pages.length).toBe(2);
      const all = pages.flat();
      expect(all.map((x) => `${String(x.kind)}:${String(x.status)}`).sort()).toEqual([
        'charge:refunded',
        'refund:completed',
        'reservation:active',
        'top_up:completed',
      ]);
      expect(all.find((x) => x.kind === 'charge')?.basketId).toBe(body.basketId);
      expect(all.find((x) => x.kind === 'reservation')?.reservationReference).toBe(r.json().reference);
      expect(new Set(all.map((x) => x.transactionId)).size).toBe(4);
    });

    it('a cursor that this list did not give out, or a limit out of bounds: 400, clearly', async () => {
      const p = await c.profile({ balance: 1_000 });
      for (const cursor of [
        'nonsense!',
        'bm9uc2Vuc2U',
        Buffer.from('["transactions",1,"x"]').toString('base64url'),
      ]) {
        const res = await c.call('GET', `/api/v1/profiles/${p.card}/orders?cursor=${cursor}`);
        expect(res.statusCode, cursor).toBe(400);
        expect(res.json().error.code).toBe('invalid_cursor');
      }
      for (const limit of ['0', '101', 'x']) {
        const res = await c.call('GET', `/api/v1/profiles/${p.card}/transactions?limit=${limit}`);
        expect(res.statusCode, limit).toBe(400);
        expect(res.json().error.code).toBe('invalid_request');
      }
      const unknown = await c.call('GET', '/api/v1/profiles/no-such-card/orders');
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().error.code).toBe('profile_not_found');
    });
  },
);
