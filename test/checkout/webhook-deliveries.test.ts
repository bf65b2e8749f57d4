import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { type CheckoutClient, setupCheckout } from './checkout-support.js';

interface Delivery {
  id: number;
  webhookId: string;
  status: string;
  nextAttemptAt: string | null;
  event: { data: Record<string, unknown> };
}

describe.each(databases)(
  'checkout v1: webhook deliveries listed and redelivered through the API on %s',
  (kind) => {
    let t: TestApp;
    let c: CheckoutClient;
    let first: string;
    let second: string;
    beforeAll(async () => {
      // Deliveries stay in the outbox (no dispatcher), so their states are the test's to set.
      t = await startApp(kind, { webhookAllowPrivate: true, outboxDisabled: true });
      c = await setupCheckout(t);
      const register = async (path: string) => {
        const r = await c.call('POST', '/api/v1/webhooks', {
          url: `http://127.0.0.1:9/${path}`,
          event: 'transaction.status.changed',
        });
        expect(r.statusCode, r.body).toBe(201);
        return r.json().id as string;
      };
      first = await register('one');
      second = await register('two');
      const p = await c.profile();
      for (const amount of [100, 200, 300]) {
        const r = await c.call('POST', `/api/v1/profiles/${p.card}/topUps`, { amount, currency: 'EUR' });
        expect(r.statusCode).toBe(201);
      }
    });
    afterAll(async () => {
      await t.close();
    });

    it('the deliveries page through more than one page, newest first, each once; webhookId keeps one webhook’s', async () => {
      const seen: Delivery[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
        const res = await c.call('GET', `/api/v1/webhookDeliveries?limit=4${q}`);
        expect(res.statusCode, res.body).toBe(200);
        const page = res.json() as { data: Delivery[]; hasMore: boolean; nextCursor: string | null };
        seen.push(...page.data);
        cursor = page.nextCursor;
        pages += 1;
      } while (cursor !== null);
      expect(pages).toBe(2);
      expect(seen.length).toBe(6);
      const ids = seen.map((d) => d.id);
      expect(ids).toEqual([...ids].sort((a, b) => b - a));
      expect(seen.map((d) => d.event.data.amount)).toEqual([300, 300, 200, 200, 100, 100]);
      const one = await c.call('GET', `/api/v1/webhookDeliveries?webhookId=${first}`);
      expect(one.json().data.map((d: Delivery) => d.webhookId)).toEqual([first, first, first]);
      expect(one.json().hasMore).toBe(false);
      const bad = await c.call('GET', '/api/v1/webhookDeliveries?cursor=abc');
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe('invalid_cursor');
    });

    it('a given-up delivery is redelivered: pending and due now; a delivered one answers 409; another merchant’s 404', async () => {
      const list = (await c.call('GET', `/api/v1/webhookDeliveries?webhookId=${second}&limit=1`)).json();
      const d = list.data[0] as Delivery;
      await t.database.db
        .updateTable('outbox_messages')
        .set({ status: 'dead' })
        .where('id', '=', d.id)
        .execute();
      const res = await c.call('POST', `/api/v1/webhookDeliveries/${d.id}/redeliver`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        id: d.id,
        status: 'pending',
        nextAttemptAt: new Date(t.clock.nowMs()).toISOString(),
      });
      await t.database.db
        .updateTable('outbox_messages')
        .set({ status: 'delivered', delivered_at: new Date(t.clock.nowMs()) })
        .where('id', '=', d.id)
        .execute();
      const done = await c.call('POST', `/api/v1/webhookDeliveries/${d.id}/redeliver`);
      expect(done.statusCode).toBe(409);
      expect(done.json().error.code).toBe('delivery_not_retriable');
      const other = await setupCheckout(t);
      const foreign = await other.call('POST', `/api/v1/webhookDeliveries/${d.id}/redeliver`);
      expect(foreign.statusCode).toBe(404);
      expect((await other.call('GET', '/api/v1/webhookDeliveries')).json()).toEqual({
        data: [],
        hasMore: false,
        nextCursor: null,
      });
    });

    it('a delivery is made on the clock of the change it reports: created when the top-up was booked, its event stamped the same', async () => {
      const now = t.clock.ms;
      try {
        const bookedAt = Math.floor(now / 86_400_000) * 86_400_000 - 26 * 86_400_000 + 7 * 3_600_000;
        t.clock.ms = bookedAt;
        const p = await c.profile();
        const r = await c.call('POST', `/api/v1/profiles/${p.card}/topUps`, { amount: 400, currency: 'EUR' });
        expect(r.statusCode, r.body).toBe(201);
        const list = (await c.call('GET', `/api/v1/webhookDeliveries?webhookId=${first}&limit=1`)).json();
        const d = list.data[0] as Delivery & { createdAt: string; event: { timestamp: string } };
        expect(d.event.data.amount).toBe(400);
        expect(d.createdAt).toBe(new Date(bookedAt).toISOString());
        expect(Date.parse(d.event.timestamp)).toBe(bookedAt);
        expect(d.nextAttemptAt).toBe(new Date(bookedAt).toISOString());
      } finally {
        t.clock.ms = now;
      }
    });
  },
);
