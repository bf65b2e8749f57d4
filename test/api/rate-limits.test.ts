import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, type TestApp, databases, startApp } from '../support/harness.js';

describe.each(databases)(
  'RateLimit headers where the service limits, Retry-After on 429 and 503, on %s',
  (kind) => {
    let t: TestApp;
    beforeAll(async () => {
      t = await startApp(kind, {
        operatorAuthMaxFailures: 3,
        operatorAuthWindowSeconds: 600,
        portalSignInMaxFailures: 2,
        portalSignInWindowSeconds: 300,
      });
    });
    afterAll(() => t?.close());

    const operator = (token: string, ip: string) =>
      t.app.inject({
        method: 'GET',
        url: '/api/admin/v1/devKeys',
        headers: { authorization: `Bearer ${token}` },
        remoteAddress: ip,
      });
    const limits = (r: { headers: Record<string, unknown> }) => [
      r.headers['ratelimit-limit'],
      r.headers['ratelimit-remaining'],
      r.headers['ratelimit-policy'],
    ];

    it('the operator API tells every caller its budget of failed authentications; over it, 429 with Retry-After', async () => {
      const ip = '203.0.113.7';
      const ok = await operator(ADMIN_TOKEN, ip);
      expect(ok.statusCode).toBe(200);
      expect(limits(ok)).toEqual(['3', '3', '3;w=600']);
      expect(ok.headers['ratelimit-reset']).toBe('0');
      const wrong = await operator('not-the-token', ip);
      expect(wrong.statusCode).toBe(401);
      expect(limits(wrong)).toEqual(['3', '2', '3;w=600']);
      expect(wrong.headers['ratelimit-reset']).toBe('600');
      await operator('not-the-token', ip);
      await operator('not-the-token', ip);
      t.clock.advance(100_000);
      const over = await operator(ADMIN_TOKEN, ip);
      expect(over.statusCode).toBe(429);
      expect(limits(over)).toEqual(['3', '0', '3;w=600']);
      expect(over.headers['retry-after']).toBe('500');
      expect(over.headers['ratelimit-reset']).toBe('500');
      // Another address has its own budget.
      expect(limits(await operator(ADMIN_TOKEN, '198.51.100.9'))).toEqual(['3', '3', '3;w=600']);
    });

    it('the portal sign-in tells its budget too', async () => {
      const signIn = () =>
        t.app.inject({
          method: 'POST',
          url: '/portal/api/v1/session',
          payload: { email: 'nobody@example.org', password: 'wrong password' },
          remoteAddress: '192.0.2.44',
        });
      const first = await signIn();
      expect(first.statusCode).toBe(401);
      expect(limits(first)).toEqual(['2', '1', '2;w=300']);
      await signIn();
      const over = await signIn();
      expect(over.statusCode).toBe(429);
      expect(limits(over)).toEqual(['2', '0', '2;w=300']);
      expect(over.headers['retry-after']).toBe('300');
    });

    it('the API document shows the headers: RateLimit on the limited operations, Retry-After on every 429 and 503', () => {
      const doc = t.app.swagger() as unknown as {
        paths: Record<
          string,
          Record<string, { responses: Record<string, { headers?: Record<string, unknown> }> }>
        >;
      };
      const headersOf = (path: string, method: string, status: string) =>
        Object.keys(doc.paths[path]?.[method]?.responses[status]?.headers ?? {});
      expect(headersOf('/api/admin/v1/devKeys', 'get', '200')).toEqual(
        expect.arrayContaining(['Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
      );
      expect(headersOf('/portal/api/v1/session', 'post', '429')).toEqual(
        expect.arrayContaining(['RateLimit-Remaining', 'Retry-After']),
      );
      for (const item of Object.values(doc.paths)) {
        for (const op of Object.values(item)) {
          for (const [status, r] of Object.entries(op.responses)) {
            if (status === '429' || status === '503')
              expect(Object.keys(r.headers ?? {})).toContain('Retry-After');
          }
        }
      }
    });
  },
);
