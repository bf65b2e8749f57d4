import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitsWidth, openChromium, screenshotDir, serve, type TestBrowser } from '../support/browser.js';
import { type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';
import { portalSession, portalCall, signIn } from './portal-support.js';

// The picture of docs/portal.md with PORTAL_SCREENSHOTS=1.
const SHOTS = screenshotDir('docs/portal', '.test-cache/portal');
const OWNER = { email: 'inhaberin@team-browser.test', password: 'a-long-enough-password' };
const STAFF = { email: 'aushilfe@team-browser.test', password: 'another-long-password' };

/**
 * docs/decisions.md, "The team: colleagues and passwords", in the settings page as a café owner
 * uses it on a phone in German: she adds a colleague, the colleague signs in, she removes the
 * colleague again, whose open page then has no session; she changes her own password.
 */
describe.each(databases)("the team on the settings page, in a phone's browser (%s)", (kind) => {
  let t: TestApp;
  let browser: TestBrowser;
  let baseUrl: string;

  beforeAll(async () => {
    t = await startApp(kind);
    const term = await setupTerminal(t);
    baseUrl = await serve(t);
    browser = await openChromium();
    const users = `/merchants/${encodeURIComponent(term.serviceUserName)}/portalUsers`;
    expect((await t.admin('POST', users, { ...OWNER, lang: 'de' })).statusCode).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('an owner adds a colleague, sees them sign in, removes them (their open page is signed out) and changes her own password', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const page = await context.newPage();
    await signIn(page, baseUrl, OWNER);
    await page.goto(`${baseUrl}/portal/settings`);
    await fitsWidth(page);

    const invite = page.locator('#invite-form');
    await invite.getByLabel('E-Mail-Adresse').fill(STAFF.email);
    await invite.getByLabel('Erstes Passwort').fill(STAFF.password);
    await Promise.all([
      page.waitForEvent('load'),
      invite.getByRole('button', { name: 'Hinzufügen' }).click(),
    ]);
    const card = page.locator('article.member', { hasText: STAFF.email });
    await expect.poll(() => card.count()).toBe(1);
    expect(await card.locator('dl').innerText()).toMatch(
      /Rolle\s+Mitarbeiter\s+Zuletzt angemeldet\s+noch nie/,
    );

    // The colleague signs in on a device of their own.
    const theirs = await (
      await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' })
    ).newPage();
    await signIn(theirs, baseUrl, STAFF);
    await theirs.goto(`${baseUrl}/portal/settings`);
    expect(await theirs.locator('#team').isVisible()).toBe(true);
    // Staff see the team and no way to change it.
    expect(await theirs.locator('#invite-form').count()).toBe(0);
    expect(await theirs.locator('details.member-actions').count()).toBe(0);

    await page.reload();
    expect(await card.locator('dl').innerText()).not.toContain('noch nie');
    await card.locator('summary').click();
    await fitsWidth(page);
    await page.locator('section[aria-labelledby=team]').screenshot({ path: `${SHOTS}/team-de-phone.png` });
    page.once('dialog', (dialog) => void dialog.accept());
    await Promise.all([
      page.waitForEvent('load'),
      card.getByRole('button', { name: `Entfernen: ${STAFF.email}` }).click(),
    ]);
    expect(await page.locator('article.member', { hasText: STAFF.email }).count()).toBe(0);

    // The colleague's next step finds no session: back to the sign-in page.
    await theirs.goto(`${baseUrl}/portal/dashboard`);
    expect(new URL(theirs.url()).pathname).toBe('/portal/signin');

    const own = page.locator('#own-password-form');
    await own.getByLabel('Aktuelles Passwort').fill('not the password');
    await own.getByLabel('Neues Passwort').fill('a-brand-new-password');
    await own.getByRole('button', { name: 'Passwort ändern' }).click();
    await expect
      .poll(() => own.getByRole('alert').textContent())
      .toBe(
        'Das aktuelle Passwort stimmt nicht. Nach fünf falschen Passwörtern in Folge ist das Konto 15 Minuten gesperrt.',
      );
    await own.getByLabel('Aktuelles Passwort').fill(OWNER.password);
    await own.getByRole('button', { name: 'Passwort ändern' }).click();
    await expect
      .poll(() => own.getByRole('status').textContent())
      .toBe('Passwort geändert. Ihre anderen Sitzungen sind beendet.');
    // This session stays; the new password is the one that signs in.
    expect(
      (await portalCall(t, await portalSession(t, OWNER.email, 'a-brand-new-password'), 'GET', '/me'))
        .statusCode,
    ).toBe(200);
    await page.goto(`${baseUrl}/portal/settings`);
    expect(new URL(page.url()).pathname).toBe('/portal/settings');
    await context.close();
  });
});
