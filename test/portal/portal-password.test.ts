import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { PASSWORD_COST } from '../../src/portal-users/password.js';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { portalSignIn } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';

describe('the cost of portal passwords', () => {
  it('is scrypt N = 2^15 in every configuration: no environment variable lowers it', () => {
    expect(PASSWORD_COST).toBe(2 ** 15);
    for (const NODE_ENV of ['production', 'development', 'test']) {
      const env = { NODE_ENV, PORTAL_PASSWORD_COST: '1024', SCRYPT_N: '1024', DATA_DIR: '/tmp/punchcard-x' };
      expect(loadConfig(env).portalPasswordCost).toBe(PASSWORD_COST);
    }
  });
});

describe.each(databases)('portal sign-in at the service cost (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;

  beforeAll(async () => {
    // The service's own cost, not the test apps' lower one (TEST_PASSWORD_COST).
    t = await startApp(kind, {
      portalPasswordCost: loadConfig({ DATA_DIR: '/tmp/punchcard-x' }).portalPasswordCost,
    });
    term = await setupTerminal(t);
  });
  afterAll(() => t?.close());

  it('a password is stored as an scrypt hash with N = 2^15; it signs in, a wrong one and an unknown e-mail do not', async () => {
    const users = `/merchants/${encodeURIComponent(term.serviceUserName)}/portalUsers`;
    const email = `owner-${kind}@example.test`;
    expect((await t.admin('POST', users, { email, password: PASSWORD })).statusCode).toBe(201);
    const row = await t.database.db
      .selectFrom('portal_users')
      .select('password_hash')
      .where('email', '=', email)
      .executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(row.password_hash).not.toContain(PASSWORD);

    const signedIn = await portalSignIn(t, email, PASSWORD);
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    expect(signedIn.json()).toMatchObject({ csrfToken: expect.any(String) });
    for (const [who, password] of [
      [email, 'not-the-password'],
      [`nobody-${kind}@example.test`, PASSWORD],
    ] as const) {
      const refused = await portalSignIn(t, who, password);
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toMatchObject({ error: { code: 'sign_in_failed' } });
    }
  });
});
