import { beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal } from '../support/harness.js';
import { appWithMail, eventually, profileWithCard } from './support.js';

/**
 * docs/decisions.md, "Links by mail": the mails with a link to sign in or set a password are not in
 * the outbox (their tokens are stored hashed only), so the send itself is tried again after a
 * failure for now, and not after a refusal for good.
 */
describe.each(databases)('a link by mail on %s', (kind) => {
  const app = appWithMail(kind);
  let t: TestApp;
  let term: Terminal;
  let address = 0;

  beforeAll(async () => {
    t = app.t;
    term = await setupTerminal(t);
  });

  const mailsTo = (email: string) => app.smtp.mails.filter((m) => JSON.stringify(m.to).includes(email));
  const askSignIn = (email: string) =>
    t.app.inject({
      method: 'POST',
      url: '/me/sign-in',
      remoteAddress: `10.2.0.${(address += 1)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `email=${encodeURIComponent(email)}`,
    });

  it('a sign-in link the mail server refuses for now (451) arrives on its second try', async () => {
    const { email } = await profileWithCard(t, term, { language: 'en' });
    app.smtp.refuse = 1;
    app.smtp.refused = 0;
    expect((await askSignIn(email)).statusCode).toBe(200);
    const [mail] = await eventually(() => {
      const found = mailsTo(email);
      expect(found).toHaveLength(1);
      return found;
    });
    expect(app.smtp.refused).toBe(1);
    expect(mail?.text).toMatch(/\/me\/sign-in\/[A-Za-z0-9_-]+/);
  });

  it('a forgotten portal password whose mail is refused for now gets its link on the second try', async () => {
    const email = `owner-${kind}-${Date.now()}@links.test`;
    const users = `/merchants/${encodeURIComponent(term.serviceUserName)}/portalUsers`;
    const added = await t.admin('POST', users, { email, password: 'a-long-enough-password' });
    expect(added.statusCode, added.body).toBe(201);
    app.smtp.refuse = 1;
    app.smtp.refused = 0;
    const asked = await t.app.inject({
      method: 'POST',
      url: '/portal/api/v1/passwordResets',
      remoteAddress: `10.2.1.${(address += 1)}`,
      payload: { email },
    });
    expect(asked.statusCode).toBe(204);
    await eventually(() => expect(mailsTo(email)).toHaveLength(1));
    expect(app.smtp.refused).toBe(1);
    expect(mailsTo(email)[0]?.text).toMatch(/\/portal\/reset\/[A-Za-z0-9_-]{43}/);
  });

  it('an address the mail server refuses for good (550 to RCPT TO) is not tried again', async () => {
    const { email } = await profileWithCard(t, term, { language: 'en' });
    app.smtp.unknown.add(email);
    expect((await askSignIn(email)).statusCode).toBe(200);
    await t.app.services.notifications.afterAnswer.settled();
    expect(app.smtp.refusedRecipients.filter((r) => r === email)).toEqual([email]);
    expect(mailsTo(email)).toHaveLength(0);
  });
});
