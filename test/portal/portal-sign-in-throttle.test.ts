import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, setupTerminal, startApp } from '../support/harness.js';

const LIMIT = { portalSignInMaxFailures: 4, portalSignInWindowSeconds: 60 };
const PASSWORD = 'a-long-enough-password';

describe.each(databases)('portal sign-ins are throttled per client address (%s)', (kind) => {
  let t: TestApp;
  const users = [1, 2, 3].map((i) => `throttle-${i}-${kind}@example.test`);
  beforeAll(async () => {
    t = await startApp(kind, LIMIT);
    const term = await setupTerminal(t);
    const path = `/merchants/${encodeURIComponent(term.serviceUserName)}/portalUsers`;
    for (const email of users)
      expect((await t.admin('POST', path, { email, password: PASSWORD })).statusCode).toBe(201);
  });
  afterAll(() => t?.close());

  const signIn = (remoteAddress: string, email: string, password: string) =>
    t.app.inject({
      method: 'POST',
      url: '/portal/api/v1/session',
      remoteAddress,
      payload: { email, password },
    });

  it('sign-in throttle: after the allowed failures an address gets 429 sign_in_throttled with Retry-After, for any account and even the right password, until the window ends; other addresses and the accounts are unaffected', async () => {
    const attacker = '203.0.113.20';
    // Spread over accounts, so that no account reaches its own lock-out (five in a row).
    for (let i = 0; i < LIMIT.portalSignInMaxFailures; i++) {
      const res = await signIn(attacker, users[i % 2] ?? '', `wrong-password-${i}`);
      expect(res.statusCode).toBe(401);
    }
    const throttled = await signIn(attacker, users[2] ?? '', PASSWORD);
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBe('60');
    expect(throttled.headers['set-cookie']).toBeUndefined();
    expect(throttled.json()).toEqual({
      error: {
        code: 'sign_in_throttled',
        message: 'Too many failed sign-ins from this address; retry after the seconds in Retry-After.',
        requestId: expect.any(String),
      },
    });
    // The same account from another address signs in: the accounts are not locked.
    expect((await signIn('203.0.113.21', users[2] ?? '', PASSWORD)).statusCode).toBe(200);
    expect((await signIn('203.0.113.21', users[0] ?? '', PASSWORD)).statusCode).toBe(200);
    // An IPv6 client's /64 is one address.
    const v6 = '2001:db8:5:6::';
    for (let i = 0; i < LIMIT.portalSignInMaxFailures; i++) {
      expect((await signIn(`${v6}${i + 1}`, users[2] ?? '', `wrong-${i}`)).statusCode).toBe(401);
      if (i === 2) expect((await signIn(`${v6}99`, users[2] ?? '', PASSWORD)).statusCode).toBe(200);
    }
    const v6Throttled = await signIn(`${v6}abcd`, users[2] ?? '', PASSWORD);
    expect([v6Throttled.statusCode, (v6Throttled.json() as { error: { code: string } }).error.code]).toEqual([
      429,
      'sign_in_throttled',
    ]);

    t.clock.advance(30_000);
    const later = await signIn(attacker, users[2] ?? '', PASSWORD);
    expect([later.statusCode, later.headers['retry-after']]).toEqual([429, '30']);
    t.clock.advance(30_000);
    expect((await signIn(attacker, users[2] ?? '', PASSWORD)).statusCode).toBe(200);
  });

  it('successful sign-ins never count against the address', async () => {
    for (let i = 0; i < 3 * LIMIT.portalSignInMaxFailures; i++) {
      expect((await signIn('198.51.100.30', users[0] ?? '', PASSWORD)).statusCode).toBe(200);
    }
  });

  it('the refused and the throttled sign-ins are counted in /metrics', async () => {
    const metrics = (await t.app.inject('/metrics')).body;
    expect(metrics).toMatch(/punchcard_portal_sign_in_failures_total\{outcome="refused"\} 8\b/);
    expect(metrics).toMatch(/punchcard_portal_sign_in_failures_total\{outcome="throttled"\} 3\b/);
  });
});
