import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWebhookDeliveries } from '../../src/webhooks/webhook-deliveries.js';
import { type TestBrowser, fitsWidth, openChromium, screenshotDir, serve } from '../support/browser.js';
import { type TestApp, databases, merchantIdOf, startApp } from '../support/harness.js';
import { Receiver } from '../support/webhook-receiver.js';
import { type CheckoutClient, setupCheckout } from '../checkout/checkout-support.js';
import { type PortalSession, newPortalSession, portalCall, signIn } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
const SHOTS = screenshotDir('docs/portal', '.test-cache');

/**
 * docs/decisions.md, "Merchant portal: checkout clients and webhooks": the shop's endpoint was down
 * and every delivery of its webhook failed; once it is back, an owner sends every failed one again
 * at once, each with its own webhook-id, instead of one by one.
 */
describe.each(databases)('retrying every failed delivery of a webhook (%s)', (kind) => {
  let t: TestApp;
  let c: CheckoutClient;
  let owner: PortalSession;
  let staff: PortalSession;
  let browser: TestBrowser;
  let baseUrl = '';
  const receiver = new Receiver();
  const ownerEmail = `owner-${kind}@retry-all.test`;

  beforeAll(async () => {
    await receiver.start();
    // A failed attempt waits an hour: only a retry sends it sooner.
    t = await startApp(kind, {
      webhookAllowPrivate: true,
      outboxPollMs: 50,
      outboxRetryScheduleMs: [3_600_000],
    });
    c = await setupCheckout(t);
    owner = await newPortalSession(t, c.serviceUserName, {
      email: ownerEmail,
      password: PASSWORD,
      lang: 'de',
    });
    staff = await newPortalSession(t, c.serviceUserName, {
      email: `staff-${kind}@retry-all.test`,
      password: PASSWORD,
      role: 'staff',
    });
    baseUrl = await serve(t);
    browser = await openChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver.stop();
  });

  it('on a phone, in German, an owner sends the failed deliveries again at once, then the given-up ones; each arrives with its own webhook-id', async () => {
    // The endpoint answers 500 to the first six requests: three top-ups, three failed deliveries
    // waiting an hour for their next try; sent again at once, they fail again and are given up
    // (the schedule has one retry); sent again once more, they arrive.
    receiver.failFirst = 6;
    const hook = await c.call('POST', '/api/v1/webhooks', {
      url: receiver.url,
      event: 'transaction.status.changed',
    });
    expect(hook.statusCode, hook.body).toBe(201);
    const hookId = (hook.json() as { id: string }).id;
    for (let i = 0; i < 3; i++) await c.profile({ balance: 1_000 + i });
    const merchantId = await merchantIdOf(t, c.term);
    const deliveries = async () =>
      (await listWebhookDeliveries(t.app.services.webhooks, merchantId, { webhookId: hookId, limit: 10 }))
        .deliveries;
    await expect
      .poll(async () => (await deliveries()).map((d) => d.attempts.length), { timeout: 10_000 })
      .toEqual([1, 1, 1]);
    expect(receiver.received).toHaveLength(3);

    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const asked: string[] = [];
    page.on('dialog', (d) => {
      asked.push(d.message());
      void d.accept();
    });
    await signIn(page, baseUrl, { email: ownerEmail, password: PASSWORD });
    await page.goto(`${baseUrl}/portal/developers?webhookId=${encodeURIComponent(hookId)}`);
    const again = page.locator('#retry-failed');
    await fitsWidth(page);
    if (kind === 'pglite') {
      await again.screenshot({ path: `${SHOTS}/developers-retry-all-phone.png` });
    }
    const sendAll = () =>
      Promise.all([
        page.waitForEvent('load'),
        again
          .getByRole('button', { name: 'Alle fehlgeschlagenen Zustellungen dieses Webhooks erneut senden' })
          .click(),
      ]);
    await sendAll();
    expect(asked).toEqual(['Alle fehlgeschlagenen Zustellungen dieses Webhooks jetzt noch einmal senden?']);
    await expect
      .poll(async () => (await deliveries()).map((d) => [d.status, d.attempts.length]), { timeout: 10_000 })
      .toEqual([
        ['dead', 2],
        ['dead', 2],
        ['dead', 2],
      ]);
    // Given up: the page still offers them all again.
    await page.reload();
    await sendAll();
    await expect
      .poll(async () => (await deliveries()).map((d) => [d.status, d.attempts.length]), { timeout: 10_000 })
      .toEqual([
        ['delivered', 3],
        ['delivered', 3],
        ['delivered', 3],
      ]);
    // Each delivery went out three times in all, always with its own webhook-id.
    expect(receiver.received).toHaveLength(9);
    const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
    expect(new Set(ids).size).toBe(3);
    for (const id of new Set(ids)) expect(ids.filter((x) => x === id)).toHaveLength(3);
    // Nothing failed is left: the page offers no retry of them all.
    await page.reload();
    expect(await page.locator('#retry-failed').count()).toBe(0);
    await fitsWidth(page);
    await page.close();

    // Asked again with nothing failed: none retried, nothing sent.
    const none = await portalCall(t, owner, 'POST', `/webhooks/${hookId}/deliveries/retry`);
    expect(none.statusCode, none.body).toBe(200);
    expect(none.json()).toEqual({ retried: 0 });
    expect(receiver.received).toHaveLength(9);
  });

  it('is for owners, and for a webhook of the merchant', async () => {
    const hook = await c.call('POST', '/api/v1/webhooks', {
      url: receiver.url,
      event: 'transaction.status.changed',
    });
    const hookId = (hook.json() as { id: string }).id;
    const refused: [PortalSession, string, number, string][] = [
      [staff, hookId, 403, 'role_forbidden'],
      [owner, 'wh_unknown', 404, 'webhook_not_found'],
    ];
    for (const [who, id, status, code] of refused) {
      const res = await portalCall(t, who, 'POST', `/webhooks/${id}/deliveries/retry`);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json().error.code).toBe(code);
    }
    // Another merchant's webhook answers as unknown.
    const other = await setupCheckout(t);
    const theirs = await other.call('POST', '/api/v1/webhooks', {
      url: receiver.url,
      event: 'transaction.status.changed',
    });
    const res = await portalCall(
      t,
      owner,
      'POST',
      `/webhooks/${(theirs.json() as { id: string }).id}/deliveries/retry`,
    );
    expect(res.statusCode, res.body).toBe(404);
    expect(res.json().error.code).toBe('webhook_not_found');
    // Deleted: unknown too.
    expect((await portalCall(t, owner, 'DELETE', `/webhooks/${hookId}`)).statusCode).toBe(204);
    const gone = await portalCall(t, owner, 'POST', `/webhooks/${hookId}/deliveries/retry`);
    expect(gone.statusCode, gone.body).toBe(404);
  });
});
