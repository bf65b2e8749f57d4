import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestBrowser, fitsWidth, openChromium, screenshotDir, serve } from '../support/browser.js';
import { type TestApp, type Terminal, databases, setupTerminal } from '../support/harness.js';
import {
  appWithMail,
  eventually,
  profileWithCard,
  receiptBasket,
  uniqueId,
  uploadAndGrant,
} from '../notifications/support.js';
import { type PortalSession, newPortalSession, portalCall, signIn } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
const SHOTS = screenshotDir('.test-cache', '.test-cache');
const DAY = '2026-03-02';
const DAY_BEFORE = '2026-03-01';

type Undelivered = { refused: number; givenUp: number };

/**
 * docs/decisions.md, "Receipt mails not delivered, on the dashboard": the owner learns on the
 * dashboard that receipt mails of the period did not arrive, counted as the basket search's
 * receiptMail filter finds them, and follows the link to those baskets.
 */
describe.each(databases)('receipt mails not delivered, on the dashboard (%s)', (kind) => {
  const app = appWithMail(kind, { OUTBOX_RETRY_SCHEDULE_MS: '3600000' });
  let t: TestApp;
  let term: Terminal;
  let owner: PortalSession;
  let ownerEmail = '';
  let browser: TestBrowser;
  let baseUrl = '';
  const unit = () => encodeURIComponent(term.trackingUnitId);

  beforeAll(async () => {
    t = app.t;
    term = await setupTerminal(t);
    ownerEmail = `owner-${kind}@dashboard-mail.test`;
    owner = await newPortalSession(t, term.serviceUserName, {
      email: ownerEmail,
      password: PASSWORD,
      lang: 'de',
    });
    baseUrl = await serve(t);
    browser = await openChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  const mailOf = async (basketId: string) => {
    const res = await portalCall(t, owner, 'GET', `/baskets/${unit()}/${encodeURIComponent(basketId)}`);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { receiptMail: { kind: string; status: string; mail: string | null } | null })
      .receiptMail;
  };
  /** A granted basket of a customer at the till's time `at`, once its notification has had a try. */
  const sale = async (cardId: string, at: string, settled: (kind: string, status: string) => boolean) => {
    const basketId = uniqueId('dash-mail');
    await uploadAndGrant(
      term,
      basketId,
      { consumerIdentToken: cardId },
      { ...receiptBasket(false), Timestamp: at },
    );
    await eventually(async () => {
      const m = await mailOf(basketId);
      expect(m !== null && m.mail !== null && settled(m.kind, m.status)).toBe(true);
    });
    return basketId;
  };
  const dashboard = async (query: string) => {
    const res = await portalCall(t, owner, 'GET', `/dashboard?${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { undeliveredReceiptMails: Undelivered }).undeliveredReceiptMails;
  };
  /** What the basket search's filter finds over the same local days (the page's day fields). */
  const found = async (filter: string, from: string, to: string) => {
    const next = (d: string) =>
      new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    // Europe/Berlin in March: UTC+1.
    const start = new Date(Date.parse(`${from}T00:00:00+01:00`)).toISOString();
    const end = new Date(Date.parse(`${next(to)}T00:00:00+01:00`)).toISOString();
    const res = await portalCall(
      t,
      owner,
      'GET',
      `/baskets?receiptMail=${filter}&from=${start}&to=${end}&limit=100`,
    );
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { data: { basketId: string }[] }).data.map((b) => b.basketId).sort();
  };

  const refusedOnDay: string[] = [];
  let givenUpKept = '';

  it('counts the baskets of the period whose mail was refused or given up, each once, by its latest mail', async () => {
    expect(await dashboard(`from=${DAY_BEFORE}&to=${DAY}`)).toEqual({ refused: 0, givenUp: 0 });

    // An address the customer's mail server does not know: two baskets on the day, one the day before.
    const unknown = await profileWithCard(t, term);
    app.smtp.unknown.add(unknown.email);
    const isRefused = (k: string) => k === 'refused';
    refusedOnDay.push(await sale(unknown.cardId, `${DAY}T09:15:00+01:00`, isRefused));
    refusedOnDay.push(await sale(unknown.cardId, `${DAY}T18:40:00+01:00`, isRefused));
    const refusedBefore = await sale(unknown.cardId, `${DAY_BEFORE}T12:00:00+01:00`, isRefused);

    // A full mailbox: tried, then given up an hour later (this app's one retry).
    const full = await profileWithCard(t, term);
    app.smtp.busy.add(full.email);
    const isTried = (k: string) => k === 'pending';
    const givenUp = [
      await sale(full.cardId, `${DAY}T10:00:00+01:00`, isTried),
      await sale(full.cardId, `${DAY}T11:00:00+01:00`, isTried),
    ];
    t.clock.advance(3_600_000);
    for (const id of givenUp) await eventually(async () => expect((await mailOf(id))?.kind).toBe('given_up'));

    // A mail delivered and one still to be tried again are not counted.
    const fine = await profileWithCard(t, term);
    await sale(fine.cardId, `${DAY}T12:00:00+01:00`, (k) => k === 'sent');
    const later = await profileWithCard(t, term);
    app.smtp.busy.add(later.email);
    await sale(later.cardId, `${DAY}T13:00:00+01:00`, isTried);

    expect(await dashboard(`from=${DAY}&to=${DAY}`)).toEqual({ refused: 2, givenUp: 2 });
    expect(await dashboard(`from=${DAY_BEFORE}&to=${DAY}`)).toEqual({ refused: 3, givenUp: 2 });
    expect(await dashboard(`from=${DAY_BEFORE}&to=${DAY_BEFORE}`)).toEqual({ refused: 1, givenUp: 0 });
    expect(await found('refused', DAY_BEFORE, DAY_BEFORE)).toEqual([refusedBefore]);

    // Sent again to the same unknown address: refused a second time, still one basket.
    const again = await portalCall(
      t,
      owner,
      'POST',
      `/baskets/${unit()}/${encodeURIComponent(refusedOnDay[0] ?? '')}/receiptMail`,
    );
    expect(again.statusCode, again.body).toBe(200);
    await eventually(async () => expect((await mailOf(refusedOnDay[0] ?? ''))?.status).toBe('dead'));
    // The mailbox emptied and one receipt sent again: delivered, no longer counted.
    app.smtp.busy.delete(full.email);
    const mended = await portalCall(
      t,
      owner,
      'POST',
      `/baskets/${unit()}/${encodeURIComponent(givenUp[0] ?? '')}/receiptMail`,
    );
    expect(mended.statusCode, mended.body).toBe(200);
    await eventually(async () => expect((await mailOf(givenUp[0] ?? ''))?.kind).toBe('sent'));
    givenUpKept = givenUp[1] ?? '';

    const day = await dashboard(`from=${DAY}&to=${DAY}`);
    expect(day).toEqual({ refused: 2, givenUp: 1 });
    // The same baskets the basket search's filter finds over the same days.
    expect(await found('refused', DAY, DAY)).toEqual([...refusedOnDay].sort());
    expect(await found('given_up', DAY, DAY)).toEqual([givenUpKept]);

    // Only the outlet asked for.
    expect(await dashboard(`from=${DAY}&to=${DAY}&outletId=${term.outletId}`)).toEqual(day);
    expect(await dashboard(`from=${DAY}&to=${DAY}&outletId=${term.outletId + 100_000}`)).toEqual({
      refused: 0,
      givenUp: 0,
    });
    // Another merchant's dashboard counts none of them.
    const other = await setupTerminal(t);
    const otherOwner = await newPortalSession(t, other.serviceUserName, {
      email: `other-${kind}@dashboard-mail.test`,
      password: PASSWORD,
      lang: 'de',
    });
    const theirs = await portalCall(t, otherOwner, 'GET', `/dashboard?from=${DAY}&to=${DAY}`);
    expect((theirs.json() as { undeliveredReceiptMails: Undelivered }).undeliveredReceiptMails).toEqual({
      refused: 0,
      givenUp: 0,
    });
  });

  it('on a phone, in German, the notice links to exactly those baskets, within the width', async () => {
    expect(refusedOnDay.length).toBe(2);
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    await signIn(page, baseUrl, { email: ownerEmail, password: PASSWORD });
    await page.goto(`${baseUrl}/portal/dashboard?from=${DAY}&to=${DAY}`);
    const notice = page.locator('#receipt-mails-undelivered');
    expect((await notice.textContent())?.replace(/\s+/g, ' ').trim()).toBe(
      'Belege per E-Mail dieses Zeitraums, die nicht ankamen: 3 – 2 vom Mailserver des Kunden abgelehnt, 1 nach allen Versuchen aufgegeben. Auf der Kundenseite die Adresse korrigieren und erneut senden.',
    );
    await fitsWidth(page);
    await notice.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(SHOTS, `portal-dashboard-receipt-mail-${kind}.png`) });

    await Promise.all([
      page.waitForURL(/\/portal\/baskets\?/),
      notice.getByRole('link', { name: '2 vom Mailserver des Kunden abgelehnt' }).click(),
    ]);
    const listed = await page.locator('#basket-list tbody tr td:nth-child(3)').allTextContents();
    expect(listed.map((x) => x.trim()).sort()).toEqual([...refusedOnDay].sort());
    expect(await page.getByLabel('Beleg per E-Mail').inputValue()).toBe('refused');
    expect(await page.locator('input[name="from"]').inputValue()).toBe(DAY);
    expect(await page.locator('input[name="to"]').inputValue()).toBe(DAY);
    await fitsWidth(page);
    await page.screenshot({
      path: join(SHOTS, `portal-dashboard-receipt-mail-list-${kind}.png`),
      fullPage: true,
    });

    await page.goBack();
    await Promise.all([
      page.waitForURL(/receiptMail=given_up/),
      page
        .locator('#receipt-mails-undelivered')
        .getByRole('link', { name: /aufgegeben/ })
        .click(),
    ]);
    const givenUp = await page.locator('#basket-list tbody tr td:nth-child(3)').allTextContents();
    expect(givenUp.map((x) => x.trim())).toEqual([givenUpKept]);

    // A period without any: no notice.
    await page.goto(`${baseUrl}/portal/dashboard?from=2026-02-01&to=2026-02-28`);
    expect(await page.locator('#receipt-mails-undelivered').count()).toBe(0);
    await page.context().close();
  });
});
