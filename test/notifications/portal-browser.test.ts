import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { openChromium, screenshotDir, serve, type TestBrowser } from '../support/browser.js';
import { type TestApp, type Terminal, setupTerminal, startApp } from '../support/harness.js';
import {
  type MailCatcher,
  eventually,
  profileWithCard,
  startMailCatcher,
  uniqueId,
  uploadAndGrant,
} from './support.js';
import { tokens } from '../cards/cards-support.js';

// The sign-in walk's pictures stay in the test cache; docs/consumer.md's come from purchases-browser.test.ts.
const SHOTS = screenshotDir('.test-cache', '.test-cache');

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      srv.close(() => done(port));
    });
    srv.on('error', fail);
  });
}

// The pages read what the database holds; one run on the embedded database drives them in a browser.
describe('the consumer portal and the receipt in a browser', () => {
  let t: TestApp;
  let term: Terminal;
  let smtp: MailCatcher;
  let browser: TestBrowser;
  let baseUrl: string;
  let ticking: NodeJS.Timeout;

  beforeAll(async () => {
    smtp = await startMailCatcher();
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    t = await startApp('pglite', { smtpUrl: smtp.url, publicBaseUrl: baseUrl }, { OUTBOX_POLL_MS: '20' });
    ticking = setInterval(() => t.clock.advance(100), 20);
    await serve(t, port);
    term = await setupTerminal(t);
    const scheme = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/loyaltySchemes`,
      {
        name: 'Coffee points',
        earn: [{ per: 'amount', amount: 1, points: 1 }],
        reward: null,
      },
    );
    expect(scheme.statusCode, scheme.body).toBe(201);
    browser = await openChromium();
  });
  afterAll(async () => {
    clearInterval(ticking);
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  /** Asks for a sign-in link on /me in English, follows the mailed link; the link. */
  async function signInByMail(page: Page, email: string): Promise<string> {
    await page.goto(`${baseUrl}/me?lang=en`);
    await page.getByLabel('E-mail address').fill(email);
    await page.keyboard.press('Enter');
    await page.getByText('a sign-in link is on its way').waitFor();
    const signIn = await eventually(() => {
      const mail = smtp.mails.find(
        (m) => JSON.stringify(m.to).includes(email) && m.subject?.includes('sign-in'),
      );
      expect(mail).toBeDefined();
      return mail;
    });
    const link = /(http:\/\/\S+\/me\/sign-in\/[A-Za-z0-9_-]+)/.exec(signIn?.text ?? '')?.[1];
    expect(link).toBeDefined();
    await page.goto(link ?? '');
    await page.getByRole('heading', { name: 'My account' }).waitFor();
    return link ?? '';
  }

  it('signs in by the mailed link, sees a purchase, opens its receipt, and sees nothing of the gift card', async () => {
    const { profileId, cardId, email } = await profileWithCard(t, term, {
      language: 'en',
      fullName: 'Anna Berg',
    });
    // A gift card linked to the same profile, with a purchase paid by it alone.
    const gift = uniqueId('GIFT');
    await tokens(term).register(gift, { tokentype: 'gift' });
    const linked = await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: gift, tokenType: 1 });
    expect(linked.statusCode).toBe(200);
    await uploadAndGrant(term, uniqueId('gift-only'), { giftCardId: gift });
    await uploadAndGrant(term, uniqueId('coffee'), { consumerIdentToken: cardId });
    await eventually(() =>
      expect(smtp.mails.filter((m) => JSON.stringify(m.to).includes(email))).toHaveLength(1),
    );

    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'en-GB' });
    const link = await signInByMail(page, email);
    const text = await page.locator('main').innerText();
    expect(text).toContain('Anna Berg');
    expect(text).toContain(cardId);
    // "no public consumer-portal access to its activity": neither the gift card nor its purchase.
    expect(await page.content()).not.toContain(gift);
    expect(await page.locator('a', { hasText: 'Receipt' }).count()).toBe(1);
    // The cookie is http-only and SameSite=Lax.
    const cookie = (await page.context().cookies()).find((c) => c.name === 'pc_me');
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe('Lax');
    expect(text).toContain('Coffee points');
    await page.screenshot({ path: `${SHOTS}/sign-in-walk-portal.png`, fullPage: true });

    // The switches: a form with the page's CSRF token; keyboard only.
    await page
      .getByLabel('E-mail after each purchase and when you reach a new tier', { exact: true })
      .focus();
    await page.keyboard.press('Space');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved.').waitFor();
    expect(
      await page
        .getByLabel('E-mail after each purchase and when you reach a new tier', { exact: true })
        .isChecked(),
    ).toBe(false);
    const prefs = await t.database.db
      .selectFrom('consumer_preferences')
      .select(['mail_enabled', 'push_enabled'])
      .where('profile_id', '=', profileId)
      .executeTakeFirstOrThrow();
    expect(prefs).toEqual({ mail_enabled: false, push_enabled: true });
    // The same form posted without the page's token (another site's form) changes nothing.
    const forged = await page.request.post(`${baseUrl}/me/preferences`, { form: { mail: 'on', push: 'on' } });
    expect(forged.status()).toBe(403);
    expect(
      await page
        .getByLabel('E-mail after each purchase and when you reach a new tier', { exact: true })
        .isChecked(),
    ).toBe(false);

    await page.locator('a', { hasText: 'Receipt' }).click();
    await page.getByRole('heading', { name: term.serviceUserName }).waitFor();
    const receipt = await page.locator('main').innerText();
    expect(receipt).toContain('Cappuccino');
    expect(receipt).toContain('Milk: Oat');
    expect(receipt).toContain('19\u00a0%');
    expect(receipt).toContain('+9 earned');
    await page.screenshot({ path: `${SHOTS}/sign-in-walk-receipt.png`, fullPage: true });
    await page.goBack();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();

    // The link is single use: a second visit signs no one in.
    const again = await browser.newPage();
    await again.goto(link);
    expect(await again.locator('main').innerText()).toContain('unknown, used or expired');
    // A gift card id typed as the e-mail reveals nothing: the same answer as any address.
    await again.goto(`${baseUrl}/me`);
    await again.getByLabel('E-mail address').fill(`${gift}@example.org`);
    await again.getByRole('button', { name: 'Send sign-in link' }).click();
    await again.getByText('a sign-in link is on its way').waitFor();
  });

  it('a consumer chooses German for their receipts, e-mails and page: the page answers in German, and the next receipt mail is German', async () => {
    const { profileId, cardId, email } = await profileWithCard(t, term, {
      language: 'en',
      fullName: 'Jan Roth',
    });
    // A few weeks of coffees, their receipts mailed in English: the form sits far down the page.
    for (let i = 0; i < 4; i++)
      await uploadAndGrant(term, uniqueId('coffee'), { consumerIdentToken: cardId });
    const english = () => smtp.mails.filter((m) => JSON.stringify(m.to).includes(email));
    await eventually(() => expect(english()).toHaveLength(4));
    expect(english().every((m) => m.subject === `Your purchase at ${term.serviceUserName}`)).toBe(true);
    const page = await browser.newPage({ viewport: { width: 390, height: 844 }, locale: 'en-GB' });
    await signInByMail(page, email);
    expect(await page.getByLabel('Language of your receipts, e-mails and this page').inputValue()).toBe('en');
    await page.getByLabel('Language of your receipts, e-mails and this page').selectOption('de');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Gespeichert.').waitFor();
    await page.getByRole('heading', { name: 'Mein Konto' }).waitFor();
    // The answer opens at the form, where "Gespeichert." stands, not at the top of a long page.
    const notice = await page.getByText('Gespeichert.').boundingBox();
    expect(notice).not.toBeNull();
    expect((notice?.y ?? -1) >= 0 && (notice?.y ?? 1e9) < 844).toBe(true);
    expect(await page.getByLabel('Sprache Ihrer Belege, E-Mails und dieser Seite').inputValue()).toBe('de');
    const stored = await t.database.db
      .selectFrom('profiles')
      .select('language')
      .where('id', '=', profileId)
      .executeTakeFirstOrThrow();
    expect(stored.language).toBe('de');
    // The switches stay as they were: on.
    expect(
      await page.getByLabel('E-Mail nach jedem Einkauf und beim Erreichen einer neuen Stufe').isChecked(),
    ).toBe(true);
    await page.screenshot({ path: `${SHOTS}/me-language-de.png`, fullPage: true });

    await uploadAndGrant(term, uniqueId('kaffee'), { consumerIdentToken: cardId });
    const mail = await eventually(() => {
      const found = smtp.mails.find(
        (m) => JSON.stringify(m.to).includes(email) && m.subject?.startsWith('Ihr Einkauf'),
      );
      expect(found).toBeDefined();
      return found;
    });
    expect(mail?.subject).toBe(`Ihr Einkauf bei ${term.serviceUserName}`);
    // A language the page does not offer is refused and changes nothing.
    const csrf = await page.locator('input[name=csrf]').first().inputValue();
    const bad = await page.request.post(`${baseUrl}/me/preferences`, {
      form: { csrf, mail: 'on', language: 'fr' },
    });
    expect(bad.status()).toBe(400);
    expect(
      (
        await t.database.db
          .selectFrom('profiles')
          .select('language')
          .where('id', '=', profileId)
          .executeTakeFirstOrThrow()
      ).language,
    ).toBe('de');
    await page.close();
  });
});
