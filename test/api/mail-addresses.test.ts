import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIL_ADDRESS_PATTERN } from '../../src/wire/documents/mail-address.schemas.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { type PortalSession, newPortalSession, portalCall } from '../portal/portal-support.js';

/** Addresses mail servers take: dotted atoms, a domain of two labels or more, letters beyond ASCII. */
const TAKEN = [
  'lena.vogt@example.org',
  "o'brien+tag@mail.example.co.uk",
  'zoë@beispiel.de',
  'a@b.org',
  'x_y-z@sub-domain.example.com',
  `${'a'.repeat(64)}@example.org`,
];
/** Addresses a mail server refuses (501 syntax) or no domain can have: each a typing slip at a counter. */
const REFUSED = [
  'lea.wei..8@example.org',
  '.lea@example.org',
  'lea.@example.org',
  'lea@example',
  'lea@-example.org',
  'lea@example-.org',
  'lea@exa mple.org',
  'lea@@example.org',
  '"lea"@example.org',
  'lea@example..org',
  'lea@.example.org',
  'lea@example.org.',
  'le,a@example.org',
  'lea@b_c.org',
  `${'a'.repeat(65)}@example.org`,
];

/**
 * docs/decisions.md, "E-mail addresses": an address a mail server would refuse (two dots in a row,
 * a domain without a dot) is refused where it is typed, 400 invalid_request with nothing made or
 * changed, instead of being kept and every mail to it refused later.
 */
describe('the e-mail address rule', () => {
  const rule = new RegExp(`^${MAIL_ADDRESS_PATTERN}$`, 'u');
  it.each(TAKEN)('takes %s', (address) => expect(rule.test(address)).toBe(true));
  it.each(REFUSED)('refuses %s', (address) => expect(rule.test(address)).toBe(false));
});

describe.each(databases)('e-mail addresses refused where they are typed (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let owner: PortalSession;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    owner = await newPortalSession(t, term.serviceUserName, {
      email: `owner-${kind}@mail-addresses.test`,
      password: 'a-long-enough-password',
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const profiles = async () =>
    (await t.database.db.selectFrom('profiles').select(['id', 'email']).orderBy('id').execute()).map(
      (p) => p.email,
    );
  const refused = (res: { statusCode: number; body: string }) => {
    expect(res.statusCode, res.body).toBe(400);
    const { error } = JSON.parse(res.body) as { error: { code: string; message: string } };
    expect(error.code).toBe('invalid_request');
    expect(error.message).toBe(
      'The request is well-formed but not accepted: body/email must be an e-mail address a mail server accepts, such as name@example.org',
    );
  };

  it('the counter, the owner and the operator: a slip is refused and nothing is made or changed; a good address goes through', async () => {
    const before = await profiles();
    for (const email of ['lena.vogt..7@example.org', 'lena@example']) {
      refused(
        await portalCall(t, owner, 'POST', '/profiles', { fullName: 'Lena', email, requestId: randomUUID() }),
      );
      refused(
        await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/profiles`, {
          fullName: 'Lena',
          email,
        }),
      );
      refused(
        await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/portalUsers`, {
          email,
          password: 'a-long-enough-password',
        }),
      );
    }
    expect(await profiles()).toEqual(before);
    const made = await portalCall(t, owner, 'POST', '/profiles', {
      fullName: 'Lena',
      email: ' lena.vogt.7@example.org ',
      requestId: randomUUID(),
    });
    expect(made.statusCode, made.body).toBe(201);
    const id = (made.json() as { id: number }).id;
    refused(
      await portalCall(t, owner, 'PUT', `/profiles/${id}/email`, { email: 'lena.vogt.7@example..org' }),
    );
    expect((await profiles()).at(-1)).toBe('lena.vogt.7@example.org');
  });
});
