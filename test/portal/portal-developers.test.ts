import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enqueueOutbox } from '../../src/outbox/outbox.store.js';
import { expectLedgerSound } from '../checkout/checkout-support.js';
import {
  type TestApp,
  type Terminal,
  databases,
  merchantIdOf,
  setupTerminal,
  startApp,
} from '../support/harness.js';
import { Receiver } from '../support/webhook-receiver.js';
import { type PortalSession, portalCall, portalSession } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';

interface Delivery {
  id: number;
  messageId: string;
  webhookId: string;
  status: string;
  event: { type: string; data: Record<string, unknown> };
  attempts: { attempt: number; ok: boolean; error: string | null; detail: Record<string, unknown> | null }[];
}

describe.each(databases)('the merchant portal: checkout clients and webhook deliveries (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let other: Terminal;
  const receiver = new Receiver();
  let owner: PortalSession;
  let staff: PortalSession;
  let foreignOwner: PortalSession;

  const session = (email: string) => portalSession(t, email, PASSWORD);
  const call = (s: { cookie: string; csrf?: string }, method: string, url: string, payload?: object) =>
    portalCall(t, s, method, url, payload);

  const checkout = (token: string, method: string, url: string, body?: unknown) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: {
        authorization: `Token ${token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });

  /** Deliveries as the portal lists them, polled until `done` holds (the dispatcher runs on its own). */
  async function deliveriesUntil(done: (d: Delivery[]) => boolean, query = ''): Promise<Delivery[]> {
    const end = Date.now() + 10_000;
    for (;;) {
      const res = await call(owner, 'GET', `/webhookDeliveries${query}`);
      expect(res.statusCode).toBe(200);
      const list = (res.json() as { data: Delivery[] }).data;
      if (done(list) || Date.now() > end) return list;
      await new Promise((r) => setTimeout(r, 25));
    }
  }

  /** A consumer profile with a linked card, topped up through the checkout API: one webhook event each. */
  async function topUp(token: string, amount: number): Promise<void> {
    const name = encodeURIComponent(term.serviceUserName);
    const p = await t.admin('POST', `/merchants/${name}/profiles`, { fullName: 'Ada Lovelace' });
    const id = (p.json() as { id: number }).id;
    const card = `dev-${kind}-${id}`;
    expect((await t.admin('POST', `/profiles/${id}/tokens`, { tokenId: card })).statusCode).toBe(200);
    const r = await checkout(token, 'POST', `/api/v1/profiles/${card}/topUps`, { amount, currency: 'EUR' });
    expect(r.statusCode, r.body).toBe(201);
  }

  beforeAll(async () => {
    await receiver.start();
    // A failed attempt waits an hour for the next: only a person's retry sends it sooner.
    t = await startApp(kind, {
      webhookAllowPrivate: true,
      outboxPollMs: 20,
      outboxRetryScheduleMs: [3_600_000],
    });
    term = await setupTerminal(t);
    other = await setupTerminal(t);
    const users = (tm: Terminal) => `/merchants/${encodeURIComponent(tm.serviceUserName)}/portalUsers`;
    await t.admin('POST', users(term), { email: `owner-${kind}@dev.test`, password: PASSWORD });
    await t.admin('POST', users(term), { email: `staff-${kind}@dev.test`, password: PASSWORD });
    await t.admin('POST', users(other), { email: `other-${kind}@dev.test`, password: PASSWORD });
    owner = await session(`owner-${kind}@dev.test`);
    staff = await session(`staff-${kind}@dev.test`);
    foreignOwner = await session(`other-${kind}@dev.test`);
  });
  afterAll(async () => {
    await expectLedgerSound(t);
    await t?.close();
    await receiver.stop();
  });

  let accessToken = '';
  let clientId = 0;

  it('checkoutClients: an owner creates a client and sees its credentials once; the list never shows them', async () => {
    const made = await call(owner, 'POST', '/checkoutClients', { name: 'Web shop' });
    expect(made.statusCode).toBe(201);
    expect(made.headers['cache-control']).toBe('no-store');
    const body = made.json() as { id: number; accessToken: string; securitySecret: string };
    expect(body.accessToken).toMatch(/^ck_[A-Za-z0-9_-]{32}$/);
    expect(body.securitySecret).toMatch(/^[A-Za-z0-9_-]{43}$/);
    accessToken = body.accessToken;
    clientId = body.id;
    // The app uses them at once.
    expect((await checkout(accessToken, 'GET', '/api/v1/webhooks')).statusCode).toBe(200);
    for (const s of [owner, staff]) {
      const list = await call(s, 'GET', '/checkoutClients');
      expect(list.statusCode).toBe(200);
      expect(list.json().data).toEqual([
        { id: clientId, name: 'Web shop', createdAt: expect.any(String), revokedAt: null },
      ]);
      expect(list.body).not.toContain(body.accessToken);
      expect(list.body).not.toContain(body.securitySecret);
    }
    // The operator sees the same client: one domain, two interfaces.
    const operator = await t.admin(
      'GET',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/checkoutClients`,
    );
    expect((operator.json().data as { id: number }[]).map((c) => c.id)).toEqual([clientId]);
  });

  it('checkoutClients.security: staff may not create or revoke, a change needs the CSRF token, another merchant sees nothing', async () => {
    const byStaff = await call(staff, 'POST', '/checkoutClients', { name: 'Staff shop' });
    expect(byStaff.statusCode).toBe(403);
    expect(byStaff.json()).toMatchObject({ error: { code: 'role_forbidden' } });
    expect((await call(staff, 'POST', `/checkoutClients/${clientId}/revoke`)).statusCode).toBe(403);
    const noCsrf = await call({ cookie: owner.cookie }, 'POST', '/checkoutClients', { name: 'x' });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json()).toMatchObject({ error: { code: 'csrf_token_invalid' } });
    expect((await call({ cookie: '' }, 'GET', '/checkoutClients')).statusCode).toBe(401);
    expect((await call(foreignOwner, 'GET', '/checkoutClients')).json()).toEqual({
      data: [],
      hasMore: false,
      nextCursor: null,
    });
    const foreign = await call(foreignOwner, 'POST', `/checkoutClients/${clientId}/revoke`);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ error: { code: 'not_found' } });
    expect((await call(owner, 'POST', '/checkoutClients', { name: '' })).statusCode).toBe(400);
    // Still live.
    expect((await checkout(accessToken, 'GET', '/api/v1/webhooks')).statusCode).toBe(200);
  });

  it('webhookDeliveries: a failed delivery shows its attempt; the owner retries it and it is delivered', async () => {
    const hook = await checkout(accessToken, 'POST', '/api/v1/webhooks', {
      url: receiver.url,
      event: 'transaction.status.changed',
    });
    expect(hook.statusCode).toBe(201);
    const { id: webhookId, secret } = hook.json() as { id: string; secret: string };
    // The webhook is listed without its signing secret.
    const hooks = await call(staff, 'GET', '/webhooks');
    expect(hooks.json().data).toEqual([
      {
        id: webhookId,
        url: receiver.url,
        event: 'transaction.status.changed',
        createdAt: expect.any(String),
      },
    ]);
    expect(hooks.body).not.toContain(secret);

    receiver.failFirst = 1;
    await topUp(accessToken, 1_000);
    const failed = await deliveriesUntil((d) => d[0]?.attempts.length === 1);
    expect(failed).toHaveLength(1);
    const delivery = failed[0] as Delivery;
    expect(delivery).toMatchObject({
      webhookId,
      status: 'pending',
      event: { type: 'transaction.status.changed', data: { kind: 'top_up', amount: 1_000 } },
      attempts: [{ attempt: 1, ok: false, error: 'HTTP 500', detail: { status: 500 } }],
    });
    // Staff see it (and its attempts) but may not retry; another merchant does not see it at all.
    const staffList = await call(staff, 'GET', '/webhookDeliveries');
    expect((staffList.json() as { data: Delivery[] }).data.map((d) => d.id)).toEqual([delivery.id]);
    expect((await call(staff, 'POST', `/webhookDeliveries/${delivery.id}/retry`)).statusCode).toBe(403);
    const foreignList = await call(foreignOwner, 'GET', '/webhookDeliveries');
    expect(foreignList.json()).toEqual({ data: [], hasMore: false, nextCursor: null });
    const foreignRetry = await call(foreignOwner, 'POST', `/webhookDeliveries/${delivery.id}/retry`);
    expect(foreignRetry.statusCode).toBe(404);
    expect(foreignRetry.json()).toMatchObject({ error: { code: 'not_found' } });
    expect(
      (await call({ cookie: owner.cookie }, 'POST', `/webhookDeliveries/${delivery.id}/retry`)).statusCode,
    ).toBe(403);

    const retried = await call(owner, 'POST', `/webhookDeliveries/${delivery.id}/retry`);
    expect(retried.statusCode, retried.body).toBe(200);
    expect((retried.json() as Delivery).id).toBe(delivery.id);
    const done = await deliveriesUntil((d) => d[0]?.status === 'delivered');
    expect(done[0]).toMatchObject({
      id: delivery.id,
      status: 'delivered',
      attempts: [
        { attempt: 1, ok: false, error: 'HTTP 500' },
        { attempt: 2, ok: true, error: null, detail: { status: 204 } },
      ],
    });
    expect(receiver.received).toHaveLength(2);
    const again = await call(owner, 'POST', `/webhookDeliveries/${delivery.id}/retry`);
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: { code: 'delivery_not_retriable' } });
  });

  it('webhookDeliveries: newest first, a page at a time, per webhook; other outbox messages are not deliveries', async () => {
    await topUp(accessToken, 200);
    await topUp(accessToken, 300);
    const all = await deliveriesUntil((d) => d.length === 3 && d.every((x) => x.status === 'delivered'));
    expect(all.map((d) => d.event.data.amount)).toEqual([300, 200, 1_000]);
    const first = await call(owner, 'GET', '/webhookDeliveries?limit=2');
    const page1 = first.json() as { data: Delivery[]; hasMore: boolean; nextCursor: string | null };
    expect(page1.data.map((d) => d.id)).toEqual([all[0]?.id, all[1]?.id]);
    expect(page1.hasMore).toBe(true);
    const second = await call(owner, 'GET', `/webhookDeliveries?limit=2&cursor=${page1.nextCursor ?? ''}`);
    expect(second.json()).toMatchObject({ data: [{ id: all[2]?.id }], hasMore: false, nextCursor: null });
    const bad = await call(owner, 'GET', '/webhookDeliveries?cursor=W10');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ error: { code: 'invalid_cursor' } });
    const hookId = all[0]?.webhookId ?? '';
    const byHook = await call(owner, 'GET', `/webhookDeliveries?webhookId=${hookId}&limit=100`);
    expect((byHook.json() as { data: Delivery[] }).data).toHaveLength(3);
    const none = await call(owner, 'GET', '/webhookDeliveries?webhookId=wh_unknown');
    expect(none.json()).toEqual({ data: [], hasMore: false, nextCursor: null });
    expect((await call(owner, 'GET', '/webhookDeliveries?limit=0')).statusCode).toBe(400);

    // Another topic's message of the same merchant (a purchase notification, say) is no webhook delivery.
    const mail = await enqueueOutbox(t.database.db, {
      merchantId: await merchantIdOf(t, term),
      topic: 'test.other-topic',
      payload: {},
      notBefore: new Date(t.clock.nowMs() + 86_400_000),
    });
    expect((await call(owner, 'POST', `/webhookDeliveries/${mail}/retry`)).statusCode).toBe(404);
    const listed = await call(owner, 'GET', '/webhookDeliveries?limit=100');
    expect((listed.json() as { data: Delivery[] }).data.map((d) => d.id)).not.toContain(mail);
  });

  it('the developers page: owners get the forms, staff the same lists without them', async () => {
    const page = (s: PortalSession) =>
      t.app.inject({ method: 'GET', url: '/portal/developers', headers: { cookie: s.cookie } });
    const asOwner = await page(owner);
    expect(asOwner.statusCode).toBe(200);
    expect(asOwner.body).toContain('data-api="POST /portal/api/v1/checkoutClients"');
    expect(asOwner.body).toContain(`data-client="${clientId}"`);
    expect(asOwner.body).toContain(receiver.url);
    expect(asOwner.body).toContain('aria-current="page"');
    const asStaff = await page(staff);
    expect(asStaff.statusCode).toBe(200);
    expect(asStaff.body).toContain(`data-client="${clientId}"`);
    expect(asStaff.body).toContain('data-delivery=');
    expect(asStaff.body).not.toContain('data-api="POST /portal/api/v1/checkoutClients');
    expect(asStaff.body).not.toContain('/retry');
    // In German, for a user who chose it.
    expect((await call(staff, 'PUT', '/me/lang', { lang: 'de' })).statusCode).toBe(200);
    const german = await page(staff);
    expect(german.body).toContain('<html lang="de">');
    expect(german.body).toContain('Webhook-Zustellungen');
    expect(german.body).toContain('Nur Inhaber dürfen Clients anlegen');
    // A hand-made query cannot reach the API with anything but an id or a number.
    const odd = await t.app.inject({
      method: 'GET',
      url: '/portal/developers?webhookId=%22%3E%3Cscript%3E&before=x',
      headers: { cookie: owner.cookie },
    });
    expect(odd.statusCode).toBe(200);
    expect(odd.body).not.toContain('"><script>');
  });

  it('webhooks: an owner registers a webhook and sees its secret once; deliveries to it are signed with that secret', async () => {
    // Later than the webhooks made before, so that the list shows them in one order.
    t.clock.advance(1000);
    const made = await call(owner, 'POST', '/webhooks', {
      url: `${receiver.url}?portal`,
      event: 'transaction.status.changed',
    });
    expect(made.statusCode, made.body).toBe(201);
    expect(made.headers['cache-control']).toBe('no-store');
    const hook = made.json() as { id: string; url: string; event: string; secret: string };
    expect(hook).toMatchObject({ url: `${receiver.url}?portal`, event: 'transaction.status.changed' });
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    // The portal lists it without its secret; the checkout API (same domain module) sees the same webhook.
    const listed = (await call(staff, 'GET', '/webhooks')).json().data as Record<string, unknown>[];
    expect(listed.find((w) => w.id === hook.id)).toEqual({
      id: hook.id,
      url: hook.url,
      event: hook.event,
      createdAt: expect.any(String),
    });
    const viaApp = await checkout(accessToken, 'GET', `/api/v1/webhooks/${hook.id}`);
    expect(viaApp.json()).toMatchObject({ id: hook.id, secret: hook.secret });

    await topUp(accessToken, 3);
    const [delivered] = await deliveriesUntil(
      (d) => d[0]?.status === 'delivered',
      `?webhookId=${encodeURIComponent(hook.id)}`,
    );
    expect(delivered?.status).toBe('delivered');
    // The webhook-id is the delivery's opaque messageId, not its number in the portal.
    expect(delivered?.messageId).toMatch(/^msg_[a-z2-7]{24}$/);
    const request = receiver.received.find((r) => r.headers['webhook-id'] === delivered?.messageId);
    const signed = `${delivered?.messageId}.${String(request?.headers['webhook-timestamp'])}.${request?.body}`;
    const key = Buffer.from(hook.secret.slice('whsec_'.length), 'base64');
    expect(request?.headers['webhook-signature']).toBe(
      `v1,${createHmac('sha256', key).update(signed).digest('base64')}`,
    );
  });

  it('webhooks: the target and the event are checked as by the checkout API; a refused one registers nothing', async () => {
    const before = ((await call(owner, 'GET', '/webhooks?limit=100')).json().data as unknown[]).length;
    const refused = await call(owner, 'POST', '/webhooks', {
      url: 'ftp://example.org/hook',
      event: 'transaction.status.changed',
    });
    const unknownEvent = await call(owner, 'POST', '/webhooks', { url: receiver.url, event: 'order.paid' });
    const codes = [refused, unknownEvent].map((r) => ({
      status: r.statusCode,
      code: (r.json() as { error: { code: string } }).error.code,
    }));
    expect(codes).toEqual([
      { status: 422, code: 'webhook_url_refused' },
      { status: 400, code: 'invalid_request' },
    ]);
    expect(((await call(owner, 'GET', '/webhooks?limit=100')).json().data as unknown[]).length).toBe(before);
  });

  it('webhooks.security: staff may not register or delete, a change needs the CSRF token, another merchant cannot delete ours', async () => {
    const made = await call(owner, 'POST', '/webhooks', {
      url: receiver.url,
      event: 'transaction.status.changed',
    });
    const id = (made.json() as { id: string }).id;
    const body = { url: receiver.url, event: 'transaction.status.changed' };
    const answers = await Promise.all([
      call(staff, 'POST', '/webhooks', body),
      call(staff, 'DELETE', `/webhooks/${id}`),
      call({ cookie: owner.cookie }, 'DELETE', `/webhooks/${id}`),
      call(foreignOwner, 'DELETE', `/webhooks/${id}`),
    ]);
    expect(answers.map((r) => [r.statusCode, (r.json() as { error: { code: string } }).error.code])).toEqual([
      [403, 'role_forbidden'],
      [403, 'role_forbidden'],
      [403, 'csrf_token_invalid'],
      [404, 'webhook_not_found'],
    ]);
    const listed = (await call(owner, 'GET', '/webhooks?limit=100')).json().data as { id: string }[];
    expect(listed.map((w) => w.id)).toContain(id);
  });

  it('webhooks: an owner deletes a webhook; it is gone from both lists, and deleting it again is unknown', async () => {
    const made = await call(owner, 'POST', '/webhooks', {
      url: receiver.url,
      event: 'transaction.status.changed',
    });
    const id = (made.json() as { id: string }).id;
    const gone = await call(owner, 'DELETE', `/webhooks/${id}`);
    expect(gone.statusCode).toBe(204);
    const listed = (await call(owner, 'GET', '/webhooks?limit=100')).json().data as { id: string }[];
    expect(listed.map((w) => w.id)).not.toContain(id);
    expect((await checkout(accessToken, 'GET', `/api/v1/webhooks/${id}`)).statusCode).toBe(404);
    const again = await call(owner, 'DELETE', `/webhooks/${id}`);
    expect([again.statusCode, (again.json() as { error: { code: string } }).error.code]).toEqual([
      404,
      'webhook_not_found',
    ]);
  });

  it('checkoutClients: an owner revokes a client and the app is refused from its next call', async () => {
    const revoked = await call(owner, 'POST', `/checkoutClients/${clientId}/revoke`);
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json()).toMatchObject({ id: clientId, revokedAt: expect.any(String) });
    expect((await checkout(accessToken, 'GET', '/api/v1/webhooks')).statusCode).toBe(401);
    const unknown = await call(owner, 'POST', '/checkoutClients/999999/revoke');
    expect(unknown.statusCode).toBe(404);
  });

  it('checkoutClients: a client is made and revoked on one clock: created when it was made, revoked after', async () => {
    const now = t.clock.ms;
    try {
      // A client made at 07:00 UTC 26 days back (a time of day every run shares) and revoked an hour
      // later keeps those times, in that order.
      const madeAt = Math.floor(now / 86_400_000) * 86_400_000 - 26 * 86_400_000 + 7 * 3_600_000;
      t.clock.ms = madeAt;
      const made = await call(owner, 'POST', '/checkoutClients', { name: 'Kiosk' });
      expect(made.statusCode).toBe(201);
      const id = (made.json() as { id: number }).id;
      t.clock.ms = madeAt + 3_600_000;
      const revoked = await call(owner, 'POST', `/checkoutClients/${id}/revoke`);
      expect(revoked.statusCode).toBe(200);
      expect(revoked.json()).toEqual({
        id,
        name: 'Kiosk',
        createdAt: new Date(madeAt).toISOString(),
        revokedAt: new Date(madeAt + 3_600_000).toISOString(),
      });
    } finally {
      t.clock.ms = now;
    }
  });
});
