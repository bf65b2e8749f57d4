import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { tokens } from '../cards/cards-support.js';
import { type Terminal, databases, setupTerminal } from '../support/harness.js';
import { type PortalSession, ownerAndStaff, portalCall } from '../portal/portal-support.js';
import { appWithMail, eventually, uniqueId, uploadAndGrant } from './support.js';

/**
 * docs/decisions.md, "The welcome mail": a customer enrolled at the counter with an e-mail address
 * gets, when the staff member asks for it, one mail in their language with their card, balance and
 * points and the way to their own page; the enrolment sent twice mails once, and a customer without
 * an address is mailed nothing.
 */
describe.each(databases)('the welcome mail of a customer enrolled in the portal (%s)', (kind) => {
  const app = appWithMail(kind);
  let term: Terminal;
  let owner: PortalSession;
  let staff: PortalSession;

  beforeAll(async () => {
    term = await setupTerminal(app.t);
    const scheme = await app.t.admin(
      'POST',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/loyaltySchemes`,
      { name: 'Kaffeepunkte', earn: [{ per: 'amount', amount: 1, points: 1 }], reward: null },
    );
    expect(scheme.statusCode, scheme.body).toBe(201);
    ({ owner, staff } = await ownerAndStaff(
      app.t,
      term.serviceUserName,
      { owner: `owner-${kind}@welcome.test`, staff: `staff-${kind}@welcome.test` },
      'a-long-enough-password',
    ));
  });

  const enrol = (body: Record<string, unknown>) =>
    portalCall(app.t, staff, 'POST', '/profiles', { requestId: randomUUID(), ...body });
  const mailsTo = (email: string) => app.smtp.mails.filter((m) => JSON.stringify(m.to).includes(email));
  const firstMailTo = (email: string) =>
    eventually(() => {
      const [first] = mailsTo(email);
      expect(first).toBeDefined();
      return first;
    });
  /** The welcome mails queued for the profile, however far they got. */
  const queued = async (profileId: number) =>
    (
      await app.t.database.db
        .selectFrom('outbox_messages')
        .select('payload')
        .where('topic', '=', 'profile.welcome_mail')
        .execute()
    ).filter(
      (m) => (typeof m.payload === 'string' ? JSON.parse(m.payload) : m.payload).profileId === profileId,
    );

  it('a regular enrolled with the card she used for weeks gets one mail in German: her card, the balance and points it brought, and her page', async () => {
    const card = uniqueId('KARTE');
    expect((await tokens(term).register(card)).statusCode).toBe(200);
    expect((await tokens(term).add(card, '8.40')).statusCode).toBe(200);
    await uploadAndGrant(term, uniqueId('kaffee'), { consumerIdentToken: card });
    const email = `${uniqueId('lena')}@example.org`;
    const body = {
      fullName: 'Lena Vogt',
      email,
      language: 'de',
      tokenId: card,
      welcomeMail: true,
      requestId: randomUUID(),
    };
    // Tapped twice: one customer, one mail.
    const answers = await Promise.all([enrol(body), enrol(body)]);
    for (const res of answers) expect(res.statusCode, res.body).toBe(201);
    const id = (answers[0]?.json() as { id: number }).id;
    const mail = await firstMailTo(email);
    expect(mail?.subject).toBe(`Willkommen bei ${term.serviceUserName}`);
    expect(mail?.text).toContain('Hallo Lena Vogt,');
    expect(mail?.text).toContain(`Ihre Karte: ${card}`);
    expect(mail?.text).toContain('Ihr Guthaben: 8,40\u00a0€');
    expect(mail?.text).toContain('Kaffeepunkte: 9 Punkte');
    expect(mail?.text).toMatch(/eigenen Seite; melden Sie sich dort mit dieser E-Mail-Adresse an: \S+\/me$/m);
    expect(mail?.html).toMatch(/<a href="[^"]+\/me">/);
    expect(await queued(id)).toHaveLength(1);
    // The outbox delivered it once; nothing else follows.
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo(email)).toHaveLength(1);
  });

  it('in English for a customer who reads English, without a card', async () => {
    const email = `${uniqueId('tom')}@example.org`;
    const res = await enrol({ email, language: 'en', welcomeMail: true });
    expect(res.statusCode, res.body).toBe(201);
    const mail = await firstMailTo(email);
    expect(mail?.subject).toBe(`Welcome to ${term.serviceUserName}`);
    expect(mail?.text).toContain('Hello,');
    expect(mail?.text).toContain('Your balance: €0.00');
    expect(mail?.text).not.toContain('Your card');
  });

  it('nothing is queued for a customer without an address, nor when no welcome is asked for', async () => {
    const noAddress = await enrol({ fullName: 'Ohne Adresse', welcomeMail: true });
    expect(noAddress.statusCode, noAddress.body).toBe(201);
    expect(await queued((noAddress.json() as { id: number }).id)).toEqual([]);
    const email = `${uniqueId('ohne-willkommen')}@example.org`;
    const notAsked = await enrol({ email, language: 'de' });
    expect(notAsked.statusCode, notAsked.body).toBe(201);
    expect(await queued((notAsked.json() as { id: number }).id)).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo(email)).toEqual([]);
  });

  it('a refused enrolment mails nothing: the card linked to another customer leaves no customer and no mail', async () => {
    const card = uniqueId('KARTE');
    expect((await enrol({ fullName: 'Erste', tokenId: card })).statusCode).toBe(201);
    const email = `${uniqueId('zweite')}@example.org`;
    const res = await enrol({ fullName: 'Zweite', email, tokenId: card, welcomeMail: true });
    expect(res.statusCode, res.body).toBe(409);
    const profiles = await app.t.database.db
      .selectFrom('profiles')
      .select('id')
      .where('email', '=', email)
      .execute();
    expect(profiles).toEqual([]);
    await new Promise((r) => setTimeout(r, 300));
    expect(mailsTo(email)).toEqual([]);
  });

  /** The customer's welcome mail as their page reads it (docs/decisions.md, "The welcome mail sent again"). */
  const welcomeOf = async (profileId: number) => {
    const res = await portalCall(app.t, staff, 'GET', `/profiles/${profileId}`);
    expect(res.statusCode, res.body).toBe(200);
    return (
      res.json() as { welcomeMail: { kind: string; attempts: number; lastError: string | null } | null }
    ).welcomeMail;
  };
  const sendAgain = (profileId: number) =>
    portalCall(app.t, staff, 'POST', `/profiles/${profileId}/welcomeMail`);
  const idOf = (res: { json: () => unknown }) => (res.json() as { id: number }).id;

  it('a welcome mail refused at a mistyped address shows as refused on the customer page; once an owner corrects the address, staff send it again and it arrives', async () => {
    const typo = `${uniqueId('jonas')}@exmaple.org`;
    app.smtp.unknown.add(typo);
    const enrolled = await enrol({ fullName: 'Jonas Berg', email: typo, language: 'de', welcomeMail: true });
    expect(enrolled.statusCode, enrolled.body).toBe(201);
    const id = idOf(enrolled);
    const refused = await eventually(async () => {
      const mail = await welcomeOf(id);
      expect(mail?.kind).toBe('refused');
      return mail;
    });
    expect(refused?.attempts).toBe(1);
    expect(refused?.lastError).toMatch(/550/);

    const right = `${uniqueId('jonas')}@example.org`;
    const corrected = await portalCall(app.t, owner, 'PUT', `/profiles/${id}/email`, { email: right });
    expect(corrected.statusCode, corrected.body).toBe(200);
    const again = await sendAgain(id);
    expect(again.statusCode, again.body).toBe(200);
    expect((again.json() as { welcomeMail: { kind: string } }).welcomeMail.kind).toBe('pending');
    const mail = await firstMailTo(right);
    expect(mail?.subject).toBe(`Willkommen bei ${term.serviceUserName}`);
    expect(mail?.text).toContain('Hallo Jonas Berg,');
    await eventually(async () => expect((await welcomeOf(id))?.kind).toBe('sent'));
    expect(await queued(id)).toHaveLength(2);
    expect(mailsTo(typo)).toEqual([]);
  });

  it('a customer enrolled without it is sent one from the page; sent again while it is on its way is refused (welcome_mail_pending), and two at once queue one', async () => {
    const email = `${uniqueId('mia')}@example.org`;
    // The customer's mailbox answers "try again later": the mail stays on its way.
    app.smtp.busy.add(email);
    try {
      const enrolled = await enrol({ fullName: 'Mia Roth', email });
      expect(enrolled.statusCode, enrolled.body).toBe(201);
      const id = idOf(enrolled);
      expect(await welcomeOf(id)).toBeNull();
      const answers = await Promise.all([sendAgain(id), sendAgain(id)]);
      expect(answers.map((a) => a.statusCode).sort()).toEqual([200, 409]);
      const refusedAnswer = answers.find((a) => a.statusCode === 409);
      expect((refusedAnswer?.json() as { error: { code: string } }).error.code).toBe('welcome_mail_pending');
      // Tried, refused for now by the busy mailbox: still on its way, still refused.
      await eventually(async () => expect((await welcomeOf(id))?.lastError).toMatch(/452/));
      expect((await welcomeOf(id))?.kind).toBe('pending');
      const third = await sendAgain(id);
      expect(third.statusCode, third.body).toBe(409);
      expect((third.json() as { error: { code: string } }).error.code).toBe('welcome_mail_pending');
      expect(await queued(id)).toHaveLength(1);
    } finally {
      app.smtp.busy.delete(email);
    }
  });

  it('a customer without an address is refused (welcome_mail_no_address), an unknown one is 404, and nothing is queued', async () => {
    const enrolled = await enrol({ fullName: 'Ohne Post' });
    expect(enrolled.statusCode, enrolled.body).toBe(201);
    const id = idOf(enrolled);
    const res = await sendAgain(id);
    expect(res.statusCode, res.body).toBe(409);
    expect((res.json() as { error: { code: string } }).error.code).toBe('welcome_mail_no_address');
    expect(await welcomeOf(id)).toBeNull();
    expect(await queued(id)).toEqual([]);
    const unknown = await sendAgain(2_000_000_000);
    expect(unknown.statusCode, unknown.body).toBe(404);
  });
});
