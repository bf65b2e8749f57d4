import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestBrowser, fitsWidth, openChromium, screenshotDir, serve } from '../support/browser.js';
import { type TestApp, type Terminal, databases, setupTerminal } from '../support/harness.js';
import {
  appWithMail,
  eventually,
  giftCard,
  profileWithCard,
  receiptBasket,
  uniqueId,
  uploadAndGrant,
} from '../notifications/support.js';
import { type PortalSession, portalCall, portalSession } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
const SHOTS = screenshotDir('.test-cache', '.test-cache');

/**
 * docs/decisions.md, "What became of the receipt mail": a merchant asked "where is my receipt?"
 * reads on the basket's page whether the purchase mail went out, why not, or when it is tried again.
 */
describe.each(databases)("a basket's receipt mail in the portal (%s)", (kind) => {
  const app = appWithMail(kind, { OUTBOX_RETRY_SCHEDULE_MS: '3600000' });
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
    const users = `/merchants/${encodeURIComponent(term.serviceUserName)}/portalUsers`;
    const made = await t.admin('POST', users, { email, password: PASSWORD, lang: 'de' });
    expect(made.statusCode, made.body).toBe(201);
    owner = await portalSession(t, email, PASSWORD);
    baseUrl = await serve(t);
    browser = await openChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  type ReceiptMail = {
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

  it("on a phone, in German, the basket's page says why the mail did not arrive, in full and within the width", async () => {
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
    await page.context().close();
  });
});
