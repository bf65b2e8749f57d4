import { beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import {
  appWithMail,
  consumerSignIn,
  eventually,
  localPushService,
  profileWithCard,
  subscribeToPush,
  uniqueId,
  uploadAndGrant,
} from './support.js';

describe.each(databases)('purchase notifications by Web Push on %s', (kind) => {
  const push = localPushService();
  const app = appWithMail(kind, { WEBHOOK_ALLOW_PRIVATE: 'true' });
  let t: TestApp;
  let term: Terminal;

  beforeAll(async () => {
    t = app.t;
    term = await setupTerminal(t);
  });

  it('"or, for app users, by push": a subscription made in the portal receives the purchase, decrypted', async () => {
    const { cardId, email } = await profileWithCard(t, term, { language: 'en' });
    const { cookie, csrf } = await consumerSignIn(t, email);
    const subscription = push.subscribe();
    const url = '/api/me/v1/push-subscriptions';
    // Without the CSRF token, or without the session, nothing is subscribed.
    const noCsrf = await t.app.inject({ method: 'POST', url, headers: { cookie }, payload: subscription });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json()).toMatchObject({ error: { code: 'csrf_token_invalid' } });
    const noSession = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'x-csrf-token': csrf },
      payload: subscription,
    });
    expect(noSession.statusCode).toBe(401);
    const ok = await t.app.inject({
      method: 'POST',
      url,
      headers: { cookie, 'x-csrf-token': csrf },
      payload: subscription,
    });
    expect(ok.statusCode, ok.body).toBe(201);

    const basketId = uniqueId('push');
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId });
    const [message] = await eventually(() => {
      expect(push.failures).toEqual([]);
      expect(push.received).toHaveLength(1);
      return push.received;
    });
    const payload = JSON.parse(message?.plaintext ?? '{}') as { title: string; body: string; url: string };
    expect(payload.title).toBe(`Purchase at ${term.serviceUserName}`);
    expect(payload.body).toContain('2 × Cappuccino');
    expect(payload.url).toMatch(new RegExp(`^${t.config.publicBaseUrl}/receipts/[A-Za-z0-9_-]{22,}$`));
    // The VAPID key is the one the portal hands to browsers (kept in the settings table).
    const keys = await t.app.services.notifications.push.keys();
    expect(message?.vapidKey).toBe(keys.publicKey);
    const stored = await t.database.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', 'vapid_public_key')
      .executeTakeFirst();
    expect(stored?.value).toBe(keys.publicKey);
  });

  it('a purchase of many lines fits one push message (RFC 8291: one record of 4,096 bytes): the lines before the total cut where it must, marked "…", the total and how it was paid kept', async () => {
    const { cardId, email } = await profileWithCard(t, term, { language: 'de-DE' });
    await subscribeToPush(t, push, email);
    // 80 lines with long names: some 6,000 bytes of summary.
    const positions = Array.from({ length: 80 }, (_, i) => ({
      PositionId: i + 1,
      ProductId: String(3000 + i),
      ProductName: `Käsekuchen nach Hausrezept mit Sahne, Stück ${i + 1}`,
      Unit: 0,
      Amount: 1,
      CurrentGrossPrice: 1,
      VatInPercent: 7,
    }));
    const before = push.received.length;
    await uploadAndGrant(
      term,
      uniqueId('long'),
      { consumerIdentToken: cardId },
      { Timestamp: '2026-03-02T16:59:00+01:00', HasDiscounts: false, Positions: positions },
    );
    const message = await eventually(() => {
      expect(push.failures).toEqual([]);
      expect(push.received).toHaveLength(before + 1);
      return push.received[before];
    });
    expect(Buffer.byteLength(message?.plaintext ?? '')).toBeLessThanOrEqual(3993);
    const body = (JSON.parse(message?.plaintext ?? '{}') as { body: string }).body.split('\n');
    expect(body[0]).toBe('1 × Käsekuchen nach Hausrezept mit Sahne, Stück 1: 1,00\u00a0€');
    expect(body.length).toBeLessThan(80);
    expect(body.slice(-3)).toEqual(['…', 'Summe: 80,00\u00a0€', 'Anders bezahlt: 80,00\u00a0€']);
  });

  it('a subscription whose endpoint is not https on a public address is refused, and not sent to, unless private addresses are allowed', async () => {
    const strict = await startApp(kind, {}, { OUTBOX_DISABLED: 'true' });
    try {
      const st = await setupTerminal(strict);
      const { email } = await profileWithCard(strict, st);
      const { cookie, csrf } = await consumerSignIn(strict, email);
      const sub = push.subscribe();
      const refused = await strict.app.inject({
        method: 'POST',
        url: '/api/me/v1/push-subscriptions',
        headers: { cookie, 'x-csrf-token': csrf },
        payload: sub,
      });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ error: { code: 'push_subscription_invalid' } });
      // https alone is not enough: the endpoint's address must be public, as for webhooks.
      const loopback = await strict.app.inject({
        method: 'POST',
        url: '/api/me/v1/push-subscriptions',
        headers: { cookie, 'x-csrf-token': csrf },
        payload: { ...sub, endpoint: sub.endpoint.replace(/^http:/, 'https:') },
      });
      expect(loopback.statusCode).toBe(400);
      expect(loopback.json()).toMatchObject({ error: { code: 'push_subscription_invalid' } });
      // And again before every delivery: a stored subscription to a private address gets nothing.
      const sent = await strict.app.services.notifications.push.send(
        { endpoint: sub.endpoint, p256dh: sub.keys.p256dh, auth: sub.keys.auth },
        '{}',
      );
      expect(sent).toEqual({ error: expect.stringMatching(/^push endpoint refused: .*private or loopback/) });
    } finally {
      await strict.close();
    }
  });
});
