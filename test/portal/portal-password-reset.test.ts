import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fitsWidth, openChromium, serve, type TestBrowser } from '../support/browser.js';
import { databases, setupTerminal } from '../support/harness.js';
import { appWithMail, eventually } from '../notifications/support.js';
import { RESET_REQUESTS_PER_ADDRESS } from '../../src/portal/password-reset.routes.js';
import { portalCall, portalSession, portalSignIn, signIn } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';

/**
 * docs/decisions.md, "A forgotten password": a portal user who forgot the password asks for a link
 * by e-mail and sets a new one with it; the link works once, for 30 minutes; nobody learns from the
 * answers whether an e-mail has access.
 */
describe.each(databases)('a forgotten portal password (%s)', (kind) => {
  const running = appWithMail(kind);
  let browser: TestBrowser;
  let baseUrl: string;
  let serviceUserName = '';
  let address = 0;
  const email = (who: string) => `${who}-${kind}@reset.test`;
  /** Each call from an address of its own, unless one is given: the address limit has its own test. */
  const ask = (who: string, from = `10.1.0.${(address += 1)}`, lang?: 'de' | 'en') =>
    running.t.app.inject({
      method: 'POST',
      url: '/portal/api/v1/passwordResets',
      remoteAddress: from,
      payload: { email: who, ...(lang ? { lang } : {}) },
    });
  const redeem = (token: string, newPassword: string) =>
    running.t.app.inject({
      method: 'POST',
      url: '/portal/api/v1/passwordResets/redeem',
      payload: { token, newPassword },
    });
  const mailsTo = (to: string) => running.smtp.mails.filter((m) => m.to && JSON.stringify(m.to).includes(to));
  const tokenOf = (text: string | undefined) =>
    /\/portal\/reset\/([A-Za-z0-9_-]{43})/.exec(text ?? '')?.[1] ?? '';
  const addUser = async (who: string, lang?: 'de' | 'en') => {
    const users = `/merchants/${encodeURIComponent(serviceUserName)}/portalUsers`;
    const res = await running.t.admin('POST', users, { email: email(who), password: PASSWORD, lang });
    expect(res.statusCode, res.body).toBe(201);
    return (res.json() as { id: number }).id;
  };

  beforeAll(async () => {
    serviceUserName = (await setupTerminal(running.t)).serviceUserName;
    await addUser('owner');
    baseUrl = await serve(running.t);
    browser = await openChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
  });

  it("the link mailed in the user's language sets a new password once: every session ends, a lock-out is lifted, the old password signs in no more", async () => {
    await addUser('anna', 'de');
    const open = await portalSession(running.t, email('anna'), PASSWORD);
    for (let i = 0; i < 5; i++) await portalSignIn(running.t, email('anna'), 'forgotten');
    expect((await portalSignIn(running.t, email('anna'), PASSWORD)).statusCode).toBe(429);

    const asked = await ask(email('Anna').replace('Anna', 'ANNA'));
    expect(asked.statusCode, asked.body).toBe(204);
    const mail = await eventually(() => {
      const [m] = mailsTo(email('anna'));
      expect(m).toBeDefined();
      return m;
    });
    expect(mail?.subject).toMatch(/^Neues Passwort für das Portal von /);
    expect(mail?.text).toContain('Er gilt einmal, 30 Minuten lang');
    const token = tokenOf(mail?.text);
    expect(token).toHaveLength(43);
    expect(mail?.html).toContain(`href="`);

    const short = await redeem(token, 'short');
    expect(short.json()).toMatchObject({ error: { code: 'password_too_short' } });
    const done = await redeem(token, 'my-brand-new-password');
    expect(done.statusCode, done.body).toBe(204);
    expect((await portalCall(running.t, open, 'GET', '/me')).statusCode).toBe(401);
    expect((await portalSignIn(running.t, email('anna'), PASSWORD)).statusCode).toBe(401);
    expect((await portalSignIn(running.t, email('anna'), 'my-brand-new-password')).statusCode).toBe(200);
    const again = await redeem(token, 'another-new-password');
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ error: { code: 'password_reset_invalid' } });
  });

  it('an e-mail without access, or of a colleague removed, gets the same answer and no mail; a link of a colleague removed since, or expired, sets nothing', async () => {
    const before = running.smtp.mails.length;
    for (const who of [email('nobody'), 'not an e-mail at all']) {
      const res = await ask(who);
      expect(res.statusCode).toBe(204);
      expect(res.body).toBe('');
    }
    const ben = await addUser('ben');
    await ask(email('ben'));
    const mail = await eventually(() => {
      const [m] = mailsTo(email('ben'));
      expect(m).toBeDefined();
      return m;
    });
    expect(mail?.subject).toMatch(/^Set a new password for the portal of /);
    const owner = await portalSession(running.t, email('owner'), PASSWORD);
    expect((await portalCall(running.t, owner, 'DELETE', `/users/${ben}`)).statusCode).toBe(204);
    const refused = await redeem(tokenOf(mail?.text), 'a-takeover-password');
    expect(refused.json()).toMatchObject({ error: { code: 'password_reset_invalid' } });
    await ask(email('ben'));
    // Only the one mail of ben (before the removal) came; the unknown addresses got none.
    await new Promise((r) => setTimeout(r, 300));
    expect(running.smtp.mails.length - before).toBe(1);

    await addUser('carl');
    await ask(email('carl'));
    const late = await eventually(() => {
      const [m] = mailsTo(email('carl'));
      expect(m).toBeDefined();
      return m;
    });
    running.t.clock.advance(30 * 60_000 + 1);
    const expired = await redeem(tokenOf(late?.text), 'a-too-late-password');
    expect(expired.json()).toMatchObject({ error: { code: 'password_reset_invalid' } });
    expect((await portalSignIn(running.t, email('carl'), PASSWORD)).statusCode).toBe(200);
    // Tokens that no link holds.
    for (const token of ['x', 'A'.repeat(43)]) {
      expect((await redeem(token, 'a-guessed-password')).json()).toMatchObject({
        error: { code: 'password_reset_invalid' },
      });
    }
  });

  it('at most three links per user in 30 minutes; a link used ends the others; an address asking too often gets 429 with Retry-After', async () => {
    await addUser('dora');
    for (let i = 0; i < 5; i++) expect((await ask(email('dora'))).statusCode).toBe(204);
    const mails = await eventually(() => {
      const got = mailsTo(email('dora'));
      expect(got.length).toBe(3);
      return got;
    });
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo(email('dora'))).toHaveLength(3);
    const [first, second] = mails.map((m) => tokenOf(m.text));
    expect((await redeem(second ?? '', 'the-second-link-password')).statusCode).toBe(204);
    expect((await redeem(first ?? '', 'the-first-link-password')).json()).toMatchObject({
      error: { code: 'password_reset_invalid' },
    });

    const from = '10.2.0.1';
    for (let i = 0; i < RESET_REQUESTS_PER_ADDRESS; i++) {
      expect((await ask(email(`unknown-${i}`), from)).statusCode).toBe(204);
    }
    const over = await ask(email('owner'), from);
    expect(over.statusCode).toBe(429);
    expect(over.json()).toMatchObject({ error: { code: 'password_reset_throttled' } });
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(0);
    expect((await ask(email('nobody'), '10.2.0.2')).statusCode).toBe(204);
  });

  it("a new password set another way (the user's own change, an owner's) spends the links mailed before it", async () => {
    const fay = await addUser('fay');
    const mailed = async (n: number) => {
      await ask(email('fay'));
      return eventually(() => {
        const m = mailsTo(email('fay'))[n];
        expect(m).toBeDefined();
        return tokenOf(m?.text);
      });
    };
    const page = (token: string) =>
      running.t.app.inject({
        method: 'GET',
        url: `/portal/reset/${token}`,
        headers: { 'accept-language': 'en' },
      });

    const first = await mailed(0);
    expect((await page(first)).statusCode).toBe(200);
    const own = await portalSession(running.t, email('fay'), PASSWORD);
    const changed = await portalCall(running.t, own, 'PUT', '/me/password', {
      currentPassword: PASSWORD,
      newPassword: 'fay-remembered-after-all',
    });
    expect(changed.statusCode, changed.body).toBe(204);
    const spent = await page(first);
    expect(spent.statusCode).toBe(410);
    expect(spent.body).toContain('This link no longer sets a password');
    expect((await redeem(first, 'a-password-from-the-old-link')).json()).toMatchObject({
      error: { code: 'password_reset_invalid' },
    });

    const second = await mailed(1);
    const owner = await portalSession(running.t, email('owner'), PASSWORD);
    const set = await portalCall(running.t, owner, 'PUT', `/users/${fay}/password`, {
      password: 'the-owner-gave-fay-this',
    });
    expect(set.statusCode, set.body).toBe(204);
    expect((await page(second)).statusCode).toBe(410);
    expect((await redeem(second, 'a-password-from-the-old-link')).json()).toMatchObject({
      error: { code: 'password_reset_invalid' },
    });
    expect((await portalSignIn(running.t, email('fay'), 'the-owner-gave-fay-this')).statusCode).toBe(200);
    // A link that no mail holds gets the same page as a spent one.
    expect((await page('B'.repeat(43))).statusCode).toBe(410);
  });

  it('in a phone\'s browser, in German: "Passwort vergessen?", the mail\'s link, the new password, signed in with it', async () => {
    await addUser('erik', 'de');
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'de-DE' });
    const page = await context.newPage();
    await page.goto(`${baseUrl}/portal/signin`);
    await page.getByRole('link', { name: 'Passwort vergessen?' }).click();
    await page.getByLabel('E-Mail-Adresse').fill(email('erik'));
    await page.getByRole('button', { name: 'Link senden' }).click();
    await expect
      .poll(() => page.getByRole('status').textContent())
      .toContain('Hat diese E-Mail-Adresse Zugang');
    await fitsWidth(page);
    const mail = await eventually(() => {
      const [m] = mailsTo(email('erik'));
      expect(m).toBeDefined();
      return m;
    });

    await page.goto(`${baseUrl}/portal/reset/${tokenOf(mail?.text)}`);
    await fitsWidth(page);
    await page.getByLabel('Neues Passwort').fill('kurz');
    await page.getByRole('button', { name: 'Neues Passwort setzen' }).click();
    // The browser's own check stops a password shorter than 10 characters before it is sent.
    expect(
      await page
        .locator('input[name=newPassword]')
        .evaluate((i) => (i as unknown as { validity: { valid: boolean } }).validity.valid),
    ).toBe(false);
    await page.getByLabel('Neues Passwort').fill('erik-sein-neues-passwort');
    await Promise.all([
      page.waitForURL(/\/portal\/signin\?reset=1$/),
      page.getByRole('button', { name: 'Neues Passwort setzen' }).click(),
    ]);
    expect(await page.getByRole('status').textContent()).toBe(
      'Ihr neues Passwort ist gesetzt. Melden Sie sich damit an.',
    );
    await signIn(page, baseUrl, { email: email('erik'), password: 'erik-sein-neues-passwort' });

    // The same link again: the page says at once, in German, that it sets nothing, and offers a new one.
    const again = await page.goto(`${baseUrl}/portal/reset/${tokenOf(mail?.text)}`);
    expect(again?.status()).toBe(410);
    expect(await page.getByRole('alert').textContent()).toBe(
      'Mit diesem Link lässt sich kein Passwort mehr setzen: Er wurde benutzt, ist abgelaufen, oder seitdem wurde ein neues Passwort gesetzt.',
    );
    expect(await page.getByLabel('Neues Passwort').count()).toBe(0);
    await fitsWidth(page);
    await page.getByRole('link', { name: 'Neuen Link anfordern' }).click();
    expect(new URL(page.url()).pathname).toBe('/portal/forgot');

    // A link that expires while its form is open: the form's answer says so.
    await page.goto(`${baseUrl}/portal/signin`);
    await page.getByRole('link', { name: 'Passwort vergessen?' }).click();
    await page.getByLabel('E-Mail-Adresse').fill(email('erik'));
    await page.getByRole('button', { name: 'Link senden' }).click();
    const second = await eventually(() => {
      const m = mailsTo(email('erik'))[1];
      expect(m).toBeDefined();
      return m;
    });
    await page.goto(`${baseUrl}/portal/reset/${tokenOf(second?.text)}`);
    running.t.clock.advance(30 * 60_000 + 1);
    await page.getByLabel('Neues Passwort').fill('noch-ein-neues-passwort');
    await page.getByRole('button', { name: 'Neues Passwort setzen' }).click();
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe('Dieser Link ist benutzt, abgelaufen oder unbekannt. Fordern Sie einen neuen an.');
    await context.close();
  });
});
