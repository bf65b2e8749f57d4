import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CheckoutClient, setupCheckout } from '../checkout/checkout-support.js';
import { type TestApp, databases, startApp } from '../support/harness.js';

interface Page<T> {
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

type Get = (url: string) => Promise<{ statusCode: number; json(): unknown; body: string }>;

/** Every row of a list, page by page: the pages' sizes and the rows in the order given. */
async function pageThrough<T>(get: Get, url: string, limit: number): Promise<{ sizes: number[]; rows: T[] }> {
  const sizes: number[] = [];
  const rows: T[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 100; i++) {
    const sep = url.includes('?') ? '&' : '?';
    const res = await get(`${url}${sep}limit=${limit}${cursor === null ? '' : `&cursor=${cursor}`}`);
    expect(res.statusCode, res.body).toBe(200);
    const page = res.json() as Page<T>;
    sizes.push(page.data.length);
    rows.push(...page.data);
    expect(page.hasMore).toBe(page.nextCursor !== null);
    if (page.nextCursor === null) return { sizes, rows };
    cursor = page.nextCursor;
  }
  throw new Error('more than 100 pages');
}

describe.each(databases)('every list of the operator and checkout APIs pages one way, on %s', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  let merchant: string;
  const admin: Get = (url) => t.admin('GET', url);
  const checkout: Get = (url) => c.call('GET', url);
  beforeAll(async () => {
    t = await startApp(kind, { webhookAllowPrivate: true });
    c = await setupCheckout(t);
    merchant = `/merchants/${encodeURIComponent(c.serviceUserName)}`;
  });
  afterAll(async () => {
    await t.close();
  });

  it('campaigns and loyalty schemes: limit and cursor through more than one page, oldest first, each once', async () => {
    const made: number[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.admin('POST', `${merchant}/campaigns`, {
        name: `Campaign ${i}`,
        type: 'product',
        discount: { percent: 10 },
        products: [{ plu: '1001' }],
      });
      expect(r.statusCode, r.body).toBe(201);
      made.push((r.json() as { id: number }).id);
    }
    const { sizes, rows } = await pageThrough<{ id: number }>(admin, `${merchant}/campaigns`, 2);
    expect(sizes).toEqual([2, 2, 1]);
    expect(rows.map((r) => r.id)).toEqual(made);
    const schemes = await t.admin('GET', `${merchant}/loyaltySchemes`);
    expect(schemes.json()).toEqual({ data: [], hasMore: false, nextCursor: null });
  });

  it('checkout clients, DevKeys and terminals page through more than one page, oldest first, each once', async () => {
    for (let i = 0; i < 3; i++) {
      expect((await t.admin('POST', `${merchant}/checkoutClients`, { name: `App ${i}` })).statusCode).toBe(
        201,
      );
    }
    const clients = await pageThrough<{ id: number; name: string }>(admin, `${merchant}/checkoutClients`, 3);
    expect(clients.sizes).toEqual([3, 1]);
    expect(clients.rows.map((r) => r.name)).toEqual(['Web shop', 'App 0', 'App 1', 'App 2']);
    for (const name of ['Vendor B', 'Vendor C']) {
      expect((await t.admin('POST', '/devKeys', { name })).statusCode).toBe(201);
    }
    const keys = await pageThrough<{ id: number }>(admin, '/devKeys', 2);
    expect(keys.sizes).toEqual([2, 1]);
    expect(keys.rows.map((k) => k.id)).toEqual([...keys.rows.map((k) => k.id)].sort((a, b) => a - b));
    const second = await t.app.inject({
      method: 'GET',
      url: `/api/pos/v3/trackingUnits?serviceUserName=${encodeURIComponent(c.serviceUserName)}&outletId=${c.term.outletId}&instanceName=Till%202`,
      headers: { devkey: c.term.devKey, accept: 'application/json' },
    });
    expect(second.statusCode, second.body).toBe(200);
    const secondId = (second.json() as { trackingUnitId: string }).trackingUnitId;
    const units = await pageThrough<{ trackingUnitId: string }>(admin, `${merchant}/trackingUnits`, 1);
    expect(units.sizes).toEqual([1, 1]);
    expect(units.rows.map((u) => u.trackingUnitId)).toEqual([c.term.trackingUnitId, secondId]);
  });

  it('balance bookings: newest first through more than one page, filtered by createdFrom and createdTo', async () => {
    const times: number[] = [];
    for (const amount of [100, 200, 300, 400]) {
      const p = await c.profile();
      times.push(t.clock.nowMs());
      const r = await c.call('POST', `/api/v1/profiles/${p.card}/topUps`, { amount, currency: 'EUR' });
      expect(r.statusCode).toBe(201);
      t.clock.advance(60_000);
    }
    const all = await pageThrough<{ amount: number }>(admin, `${merchant}/transfers`, 3);
    expect(all.sizes).toEqual([3, 1]);
    expect(all.rows.map((r) => r.amount)).toEqual([400, 300, 200, 100]);
    const from = new Date(times[1] ?? 0).toISOString();
    const to = new Date(times[3] ?? 0).toISOString();
    const some = await t.admin('GET', `${merchant}/transfers?createdFrom=${from}&createdTo=${to}`);
    expect((some.json() as Page<{ amount: number }>).data.map((r) => r.amount)).toEqual([300, 200]);
  });

  it('checkout webhooks page through more than one page, at /api/v1/webhooks and /webhooks alike', async () => {
    for (let i = 0; i < 3; i++) {
      const r = await c.call('POST', '/api/v1/webhooks', {
        url: `http://127.0.0.1:9/hook-${i}`,
        event: 'transaction.status.changed',
      });
      expect(r.statusCode).toBe(201);
      t.clock.advance(1);
    }
    for (const path of ['/api/v1/webhooks', '/webhooks']) {
      const { sizes, rows } = await pageThrough<{ url: string }>(checkout, path, 2);
      expect(sizes).toEqual([2, 1]);
      expect(rows.map((r) => r.url)).toEqual([0, 1, 2].map((i) => `http://127.0.0.1:9/hook-${i}`));
    }
  });

  it('a cursor of another list or of nothing, a limit out of bounds: 400 invalid_cursor / invalid_request', async () => {
    const campaigns = (await t.admin('GET', `${merchant}/campaigns?limit=1`)).json() as Page<unknown>;
    const foreign = await t.admin('GET', `${merchant}/checkoutClients?cursor=${campaigns.nextCursor ?? ''}`);
    expect(foreign.statusCode).toBe(400);
    expect((foreign.json() as { error: { code: string } }).error.code).toBe('invalid_cursor');
    for (const url of [
      '/devKeys?cursor=zzz',
      `${merchant}/transfers?cursor=e30`,
      `${merchant}/trackingUnits?cursor=W10`,
    ]) {
      const res = await t.admin('GET', url);
      expect(res.statusCode, url).toBe(400);
      expect((res.json() as { error: { code: string } }).error.code).toBe('invalid_cursor');
    }
    const hooks = await c.call('GET', '/api/v1/webhooks?cursor=W10');
    expect((hooks.json() as { error: { code: string } }).error.code).toBe('invalid_cursor');
    // A cursor named for the list but holding values of other kinds (made up, never given out):
    // refused as any other, never a failure of the server.
    const forged = (list: string, ...key: unknown[]) =>
      Buffer.from(JSON.stringify([list, ...key]), 'utf8').toString('base64url');
    const p = await c.profile({ balance: 100 });
    const madeUp: [Get, string][] = [
      [admin, `/devKeys?cursor=${forged('devKeys', 'x')}`],
      [admin, `${merchant}/transfers?cursor=${forged('transfers', 'x')}`],
      [admin, `${merchant}/trackingUnits?cursor=${forged('trackingUnits', 'x', 1)}`],
      [admin, `${merchant}/checkoutClients?cursor=${forged('checkoutClients', 'x')}`],
      [admin, `${merchant}/campaigns?cursor=${forged('campaigns', 'x')}`],
      [checkout, `/api/v1/webhooks?cursor=${forged('webhooks', 'x', 'y')}`],
      [checkout, `/api/v1/profiles/${p.card}/orders?cursor=${forged('orders', 'x', 'y')}`],
      [checkout, `/api/v1/profiles/${p.card}/transactions?cursor=${forged('transactions', 1, 2)}`],
      [checkout, `/api/v1/webhookDeliveries?cursor=${forged('webhookDeliveries', 'x')}`],
    ];
    for (const [get, url] of madeUp) {
      const res = await get(url);
      expect(res.statusCode, `${url}: ${res.body}`).toBe(400);
      expect((res.json() as { error: { code: string } }).error.code).toBe('invalid_cursor');
    }
    for (const url of [
      '/devKeys?limit=0',
      `${merchant}/campaigns?limit=101`,
      `${merchant}/transfers?createdTo=soon`,
    ]) {
      const res = await t.admin('GET', url);
      expect(res.statusCode, url).toBe(400);
      expect((res.json() as { error: { code: string } }).error.code).toBe('invalid_request');
    }
  });
});
