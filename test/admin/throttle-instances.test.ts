import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, databases } from '../support/harness.js';
import type { HttpClient } from '../support/http-pos.js';
import { twoServers } from '../support/two-servers.js';

/**
 * The throttles per client address count an address's failures over every instance of the service
 * (docs/decisions.md, "Throttles per client address shared by the instances"): two server processes
 * on one PostgreSQL database, an attacker alternating between them, gets the budget once, not once
 * per instance. Both processes see the test as the same address (127.0.0.1).
 */
describe.runIf(databases.includes('postgres'))(
  'throttles per client address across two server processes on PostgreSQL',
  () => {
    const two = twoServers('punchcard_th', {
      OPERATOR_AUTH_MAX_FAILURES: '3',
      PORTAL_SIGN_IN_MAX_FAILURES: '3',
    });
    beforeAll(() => two.start(), 120_000);
    afterAll(() => two.stop());

    const pair = (): [HttpClient, HttpClient] => {
      const [a, b] = two.clients;
      if (!a || !b) throw new Error('two servers expected');
      return [a, b];
    };

    it('operator token guessing: three failures spread over both instances spend the address budget on both; the right token then gets 429 with Retry-After from either', async () => {
      const [a, b] = pair();
      const operator = (client: HttpClient, token: string) =>
        client.raw('GET', '/api/admin/v1/devKeys', { authorization: `Bearer ${token}` });
      expect((await operator(a, 'guess-1-0123456789abcdef')).status).toBe(401);
      expect((await operator(b, 'guess-2-0123456789abcdef')).status).toBe(401);
      // Successful calls never count; the budget left is what both instances counted together.
      const served = await operator(a, ADMIN_TOKEN);
      expect(served.status).toBe(200);
      expect(served.headers['ratelimit-remaining']).toBe('1');
      expect((await operator(a, 'guess-3-0123456789abcdef')).status).toBe(401);
      for (const client of [b, a]) {
        const refused = await operator(client, ADMIN_TOKEN);
        expect(refused.status).toBe(429);
        expect(JSON.parse(refused.text)).toMatchObject({
          error: { code: 'too_many_failed_authentications' },
        });
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      }
    });

    it('portal sign-ins: three failed sign-ins spread over both instances, each for another e-mail, and the fourth from this address is refused by either', async () => {
      const [a, b] = pair();
      const signIn = (client: HttpClient, email: string) =>
        client.raw(
          'POST',
          '/portal/api/v1/session',
          { 'content-type': 'application/json' },
          JSON.stringify({ email, password: 'not-the-password' }),
        );
      expect((await signIn(a, 'first@example.test')).status).toBe(401);
      expect((await signIn(b, 'second@example.test')).status).toBe(401);
      expect((await signIn(a, 'third@example.test')).status).toBe(401);
      for (const client of [b, a]) {
        const refused = await signIn(client, 'fourth@example.test');
        expect(refused.status).toBe(429);
        expect(JSON.parse(refused.text)).toMatchObject({ error: { code: 'sign_in_throttled' } });
      }
    });
  },
);
