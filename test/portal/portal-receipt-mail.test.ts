import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestBrowser, fitsWidth, openChromium, screenshotDir, serve } from '../support/browser.js';
import { type TestApp, type Terminal, databases, setupTerminal } from '../support/harness.js';
import {
  appWithMail,
  eventually,
  giftCard,
  localPushService,
  profileWithCard,
  receiptBasket,
  subscribeToPush,
  uniqueId,
  uploadAndGrant,
} from '../notifications/support.js';
import { type PortalSession, newPortalSession, portalCall } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
const SHOTS = screenshotDir('.test-cache', '.test-cache');

/**
 * docs/decisions.md, "What became of the receipt mail": a merchant asked "where is my receipt?"
 * reads on the basket's page whether the purchase mail went out, why not, or when it is tried again.
 */
describe.each(databases)("a basket's receipt mail in the portal (%s)", (kind) => {
  const push = localPushService();
  const app = appWithMail(kind, { OUTBOX_RETRY_SCHEDULE_MS: '3600000', WEBHOOK_ALLOW_PRIVATE: 'true' });
  let t: TestApp;
  let term: Terminal;
  let owner: PortalSession;
  let ownerEmail = '';
  let browser: TestBrowser;
  let baseUrl = '';

  beforeAll(async () => {
    t = app.t;
    term = await setupTerminal(t);
    const email = (ownerEmail = `owner-${kind}@receipt-mail.test`);
    owner = await newPortalSession(t, term.serviceUserName, { email, password: PASSWORD, lang: 'de' });
    baseUrl = await serve(t);
    browser = await openChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  type ReceiptMail = {
    kind: string;
    status: string;
    attempts: number;
    mail: string | null;
    lastError: string | null;
  } | null;
  /** The basket as the portal's API and its page show it, once its notification has had its try. */
  const shown = async (basketId: string, settled: (m: ReceiptMail) => boolean = (m) => m?.mail != null) => {
    const path = `/baskets/${encodeURIComponent(term.trackingUnitId)}/${encodeURIComponent(basketId)}`;
    const api = await eventually(async () => {
      const res = await portalCall(t, owner, 'GET', path);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { receiptUrl: string | null; receiptMail: ReceiptMail };
      expect(settled(body.receiptMail)).toBe(true);
      return body;
    });
    const page = await t.app.inject({
      method: 'GET',
      url: `/portal${path}`,
      headers: { cookie: owner.cookie },
    });
    expect(page.statusCode).toBe(200);
    const line = /<dd id="receipt-mail">([^<]*)<\/dd>/.exec(page.body)?.[1] ?? null;
    return { api, line };
  };

  it('a mail the server took: delivered, with the time it went', async () => {
    const { cardId } = await profileWithCard(t, term);
    const basketId = uniqueId('mail-ok');
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId }, receiptBasket(false));
    const { api, line } = await shown(basketId, (m) => m?.status === 'delivered');
    expect(api.receiptMail).toMatchObject({
      status: 'delivered',
      attempts: 1,
      mail: 'sent',
      lastError: null,
    });
    expect(line).toMatch(/^Am \d\d\.\d\d\.\d{4}, \d\d:\d\d an den Mailserver übergeben\.$/);
  });

  it("an address the consumer's mail server does not know: refused, not tried again, with the server's answer", async () => {
    const { cardId, email } = await profileWithCard(t, term);
    app.smtp.unknown.add(email);
    const basketId = uniqueId('mail-refused');
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId }, receiptBasket(false));
    const { api, line } = await shown(basketId, (m) => m?.status === 'dead');
    expect(api.receiptMail).toMatchObject({ status: 'dead', attempts: 1, mail: 'refused' });
    expect(api.receiptMail?.lastError).toMatch(/550 5\.1\.1 No such user here/);
    expect(line).toMatch(
      /^Vom Mailserver des Kunden abgelehnt, kein weiterer Versuch: Can\S+ send mail.*550 5\.1\.1/,
    );
  });

  it('a mail server that refuses for now: not delivered yet, with the tries and when it is tried again', async () => {
    const { cardId } = await profileWithCard(t, term);
    app.smtp.refuse = 1;
    const basketId = uniqueId('mail-later');
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId }, receiptBasket(false));
    const { api, line } = await shown(basketId);
    expect(api.receiptMail).toMatchObject({ status: 'pending', attempts: 1, mail: 'failed' });
    expect(line).toMatch(
      /^Noch nicht zugestellt \(Versuche: 1\), neuer Versuch am \d\d\.\d\d\.\d{4}, \d\d:\d\d: (?!mail: ).*451/,
    );
  });

  it('a gift card notifies nobody: none, said so', async () => {
    const card = await giftCard(term);
    const basketId = uniqueId('mail-gift');
    await uploadAndGrant(term, basketId, { consumerIdentToken: card }, receiptBasket(false));
    const { api, line } = await shown(basketId, () => true);
    if (api.receiptUrl === null) expect(line).toBeNull();
    else
      expect(line).toBe(
        'Keine: niemand zu benachrichtigen (kein Kundenprofil, eine Geschenkkarte oder ein Profil ohne E-Mail-Adresse).',
      );
    expect(api.receiptMail).toBeNull();
  });

  it('a consumer who switched receipt mails off but takes push: not sent, said why', async () => {
    const { cardId, email } = await profileWithCard(t, term);
    const session = await subscribeToPush(t, push, email);
    const off = await t.app.inject({
      method: 'POST',
      url: '/me/preferences',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: session.cookie },
      payload: `csrf=${session.csrf}&push=on`,
    });
    expect(off.statusCode, off.body).toBe(303);
    const basketId = uniqueId('mail-off');
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId }, receiptBasket(false));
    const { api, line } = await shown(basketId, (m) => m?.status === 'delivered');
    expect(api.receiptMail).toMatchObject({ kind: 'not_sent', mail: 'switched_off', lastError: null });
    expect(line).toBe('Nicht gesendet: der Kunde hat Beleg-E-Mails abgeschaltet.');
    await eventually(() => expect(push.received.some((r) => r.path === session.path)).toBe(true));
  });

  it('every try failed: given up, with the tries and the last answer', async () => {
    const { cardId, email } = await profileWithCard(t, term);
    app.smtp.busy.add(email);
    const basketId = uniqueId('mail-given-up');
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId }, receiptBasket(false));
    await shown(basketId, (m) => m?.mail === 'failed');
    // The one retry of this app's schedule is an hour after the first try.
    t.clock.advance(3_600_000);
    const { api, line } = await shown(basketId, (m) => m?.status === 'dead');
    expect(api.receiptMail).toMatchObject({ kind: 'given_up', attempts: 2, mail: 'failed' });
    expect(line).toMatch(/^Aufgegeben \(Versuche: 2\): .*452 4\.2\.2 Mailbox full/);
  });

  it("the basket search's receiptMail filter finds exactly the baskets whose page says that of their mail", async () => {
    // One more mail still to be tried again, after the hour the test above let pass.
    const { cardId, email } = await profileWithCard(t, term);
    app.smtp.busy.add(email);
    const later = uniqueId('mail-later-again');
    await uploadAndGrant(term, later, { consumerIdentToken: cardId }, receiptBasket(false));
    await shown(later);
    const unit = encodeURIComponent(term.trackingUnitId);
    const list = async (filter: string) => {
      const res = await portalCall(t, owner, 'GET', `/baskets?trackingUnitId=${unit}&limit=100${filter}`);
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as { data: { basketId: string }[]; hasMore: boolean };
      expect(body.hasMore).toBe(false);
      return body.data.map((b) => b.basketId).sort();
    };
    const all = await list('');
    const kindOf = new Map<string, string>();
    for (const basketId of all) {
      const res = await portalCall(t, owner, 'GET', `/baskets/${unit}/${encodeURIComponent(basketId)}`);
      const mail = (res.json() as { receiptMail: ReceiptMail }).receiptMail;
      kindOf.set(basketId, mail?.kind ?? 'none');
    }
    for (const k of ['sent', 'pending', 'refused', 'given_up']) {
      const expected = all.filter((id) => kindOf.get(id) === k);
      expect(expected.length, k).toBeGreaterThan(0);
      expect(await list(`&receiptMail=${k}`), k).toEqual(expected);
    }
    expect([...kindOf.values()]).toContain('none');
    expect([...kindOf.values()]).toContain('not_sent');
    // A consumer's own choice is not the merchant's trouble: not a filter.
    const notSent = await portalCall(t, owner, 'GET', `/baskets?receiptMail=not_sent`);
    expect(notSent.statusCode).toBe(400);
    const wrong = await portalCall(t, owner, 'GET', `/baskets?receiptMail=bounced`);
    expect(wrong.statusCode).toBe(400);
    expect((wrong.json() as { error: { code: string } }).error.code).toBe('invalid_request');
  });

  it("on a phone, in German, the basket's page says why the mail did not arrive, and the search finds every refused one, within the width", async () => {
    const { cardId, email } = await profileWithCard(t, term);
    app.smtp.unknown.add(email);
    const basketId = uniqueId('mail-phone');
    await uploadAndGrant(term, basketId, { consumerIdentToken: cardId }, receiptBasket(false));
    await shown(basketId, (m) => m?.status === 'dead');
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    await page.goto(`${baseUrl}/portal/signin`);
    await page.getByLabel(/E-Mail/).fill(ownerEmail);
    await page.getByLabel(/Passwort/).fill(PASSWORD);
    await Promise.all([
      page.waitForURL(/\/portal\/dashboard/),
      page.getByRole('button', { name: 'Anmelden' }).click(),
    ]);
    await page.goto(
      `${baseUrl}/portal/baskets/${encodeURIComponent(term.trackingUnitId)}/${encodeURIComponent(basketId)}`,
    );
    const line = page.locator('#receipt-mail');
    await expect
      .poll(() => line.textContent())
      .toMatch(/^Vom Mailserver des Kunden abgelehnt, kein weiterer Versuch: /);
    expect(await page.getByText('Beleg per E-Mail', { exact: true }).isVisible()).toBe(true);
    await fitsWidth(page);
    await line.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, `portal-receipt-mail-${kind}.png`) });

    // The owner looks for every receipt mail refused, in the basket search.
    const refused = await portalCall(
      t,
      owner,
      'GET',
      `/baskets?receiptMail=refused&limit=100&trackingUnitId=${encodeURIComponent(term.trackingUnitId)}`,
    );
    const expected = (refused.json() as { data: { basketId: string }[] }).data.map((b) => b.basketId);
    expect(expected).toContain(basketId);
    await page.goto(`${baseUrl}/portal/baskets`);
    await page.getByLabel('Beleg per E-Mail').selectOption({ label: 'Vom Mailserver des Kunden abgelehnt' });
    await Promise.all([
      page.waitForURL(/receiptMail=refused/),
      page.getByRole('button', { name: 'Suchen' }).click(),
    ]);
    const listed = await page.locator('#basket-list tbody tr td:nth-child(3)').allTextContents();
    expect(listed.map((x) => x.trim()).sort()).toEqual([...expected].sort());
    expect(await page.getByLabel('Beleg per E-Mail').inputValue()).toBe('refused');
    await page.screenshot({ path: join(SHOTS, `portal-receipt-mail-search-${kind}.png`), fullPage: true });
    await fitsWidth(page);
    await page.context().close();
  });
});
