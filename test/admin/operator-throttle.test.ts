import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientKey } from '../../src/shared/failure-throttle.js';
import { ADMIN_TOKEN, type TestApp, databases, startApp } from '../support/harness.js';

const LIMIT = { operatorAuthMaxFailures: 3, operatorAuthWindowSeconds: 60 };

describe.each(databases)('operator token guessing is throttled per client address on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind, LIMIT);
  });
  afterAll(() => t?.close());

  const call = (remoteAddress: string, token: string, headers: Record<string, string> = {}) =>
    t.app.inject({
      method: 'POST',
      url: '/api/admin/v1/devKeys',
      remoteAddress,
      headers: { authorization: `Bearer ${token}`, ...headers },
      payload: { name: 'Till vendor' },
    });

  it('successful calls never count: many of them from one address are all served', async () => {
    for (let i = 0; i < 3 * LIMIT.operatorAuthMaxFailures; i++) {
      expect((await call('198.51.100.1', ADMIN_TOKEN)).statusCode).toBe(201);
    }
  });

  it('after the allowed failures an address gets 429 with Retry-After, whatever token it sends, until the window ends; other addresses are unaffected', async () => {
    const attacker = '203.0.113.7';
    for (let i = 0; i < LIMIT.operatorAuthMaxFailures; i++) {
      expect((await call(attacker, `guess-${i}-0123456789abcdef`)).statusCode).toBe(401);
    }
    const throttled = await call(attacker, 'guess-next-0123456789abcdef');
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBe('60');
    expect(throttled.json()).toEqual({
      error: {
        code: 'too_many_failed_authentications',
        message: 'Too many failed authentications from this address; retry after the seconds in Retry-After.',
        requestId: expect.any(String),
      },
    });
    // The right token does not get through either: else the limit would not slow guessing down.
    expect((await call(attacker, ADMIN_TOKEN)).statusCode).toBe(429);
    // Another address, with the right token or a wrong one, is judged on its own.
    expect((await call('203.0.113.8', ADMIN_TOKEN)).statusCode).toBe(201);
    expect((await call('203.0.113.8', 'wrong-0123456789abcdef')).statusCode).toBe(401);

    t.clock.advance(30_000);
    const later = await call(attacker, ADMIN_TOKEN);
    expect(later.statusCode).toBe(429);
    expect(later.headers['retry-after']).toBe('30');
    t.clock.advance(30_000);
    expect((await call(attacker, ADMIN_TOKEN)).statusCode).toBe(201);
  });

  it('the failures and the refusals are counted in /metrics', async () => {
    const metrics = (await t.app.inject('/metrics')).body;
    expect(metrics).toMatch(/punchcard_operator_auth_failures_total\{outcome="refused"\} 4\b/);
    expect(metrics).toMatch(/punchcard_operator_auth_failures_total\{outcome="throttled"\} 3\b/);
  });

  it('IPv6 clients count per /64, so rotating addresses inside one network gains nothing', async () => {
    for (let i = 1; i <= LIMIT.operatorAuthMaxFailures; i++) {
      expect((await call(`2001:db8:1:2::${i}`, 'wrong-0123456789abcdef')).statusCode).toBe(401);
    }
    expect((await call('2001:db8:1:2:ffff::9', 'wrong-0123456789abcdef')).statusCode).toBe(429);
    expect((await call('2001:db8:1:3::1', ADMIN_TOKEN)).statusCode).toBe(201);
  });

  it('X-Forwarded-For is not believed without TRUST_PROXY: a forged header does not escape the limit', async () => {
    const attacker = '192.0.2.50';
    for (let i = 0; i < LIMIT.operatorAuthMaxFailures; i++) {
      const res = await call(attacker, 'wrong-0123456789abcdef', { 'x-forwarded-for': `10.9.9.${i}` });
      expect(res.statusCode).toBe(401);
    }
    const res = await call(attacker, 'wrong-0123456789abcdef', { 'x-forwarded-for': '10.9.9.99' });
    expect(res.statusCode).toBe(429);
  });
});

describe.each(databases)('behind a trusted proxy (TRUST_PROXY) on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind, LIMIT, { TRUST_PROXY: '10.0.0.2' });
  });
  afterAll(() => t?.close());

  it("the throttle counts the client address the proxy names, so one guessing client does not lock out the proxy's others", async () => {
    const viaProxy = (client: string, token: string) =>
      t.app.inject({
        method: 'POST',
        url: '/api/admin/v1/devKeys',
        remoteAddress: '10.0.0.2',
        headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client },
        payload: { name: 'Till vendor' },
      });
    for (let i = 0; i < LIMIT.operatorAuthMaxFailures; i++) {
      expect((await viaProxy('203.0.113.99', 'wrong-0123456789abcdef')).statusCode).toBe(401);
    }
    expect((await viaProxy('203.0.113.99', ADMIN_TOKEN)).statusCode).toBe(429);
    expect((await viaProxy('198.51.100.23', ADMIN_TOKEN)).statusCode).toBe(201);
  });
});

describe('client addresses', () => {
  it('IPv4 as it is, IPv4-mapped IPv6 as IPv4, IPv6 by its /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
  });
});
