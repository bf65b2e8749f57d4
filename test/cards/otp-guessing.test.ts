import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/admin/auth.js';
import { buildApp } from '../../src/app.js';
import { IDENTIFICATION_LIMITS } from '../../src/cards/identification-throttle.js';
import {
  ADMIN_TOKEN,
  type TestApp,
  type Terminal,
  databases,
  posCall,
  setupTerminal,
  startApp,
} from '../support/harness.js';
import { basket } from './cards-support.js';

describe.each(databases)('one-time password guessing through baskets on %s', (kind) => {
  let t: TestApp;
  let second: FastifyInstance;
  let n = 0;
  const guess = () => String(90_000_000 + (n += 1)).padStart(8, '0');

  beforeAll(async () => {
    t = await startApp(kind);
    second = await buildApp(
      { config: t.config, database: t.database, clock: t.clock, adminTokenHash: hashToken(ADMIN_TOKEN) },
      { logger: false },
    );
    await second.ready();
  });
  afterAll(async () => {
    if (!t) return;
    await second.close();
    await t.close();
  });
  beforeEach(() => {
    // Every test starts a fresh window of the limits, one second into it.
    t.clock.ms = (Math.floor(t.clock.ms / 60_000) + 2) * 60_000 + 1000;
  });

  const upload = (term: Terminal, basketId: string, identifiers: string[], app?: FastifyInstance) =>
    app
      ? app.inject({
          method: 'POST',
          url: `/api/pos/v3/baskets/${basketId}`,
          headers: {
            devkey: term.devKey,
            trackingunitid: term.trackingUnitId,
            'content-type': 'application/json',
            accept: 'application/json',
          },
          payload: { ...basket, ContextIdentifiers: identifiers },
        })
      : term.pos('POST', `/baskets/${basketId}`, { body: { ...basket, ContextIdentifiers: identifiers } });

  async function liveOtp(term: Terminal): Promise<{ otp: string; profileId: number }> {
    const p = await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/profiles`, {});
    const profileId = (p.json() as { id: number }).id;
    const { otp } = (await t.admin('POST', `/profiles/${profileId}/otps`)).json() as { otp: string };
    return { otp, profileId };
  }

  const storedProfile = async (term: Terminal, basketId: string) =>
    (
      await t.database.db
        .selectFrom('baskets')
        .select('profile_id')
        .where('tracking_unit_id', '=', term.trackingUnitId)
        .where('basket_id', '=', basketId)
        .executeTakeFirst()
    )?.profile_id;

  it('more than 3 OTP-shaped identifiers in one basket: 400 / 1049, nothing stored', async () => {
    const term = await setupTerminal(t);
    const res = await upload(term, 'many', [guess(), guess(), guess(), guess()]);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ ErrorId: 1049 });
    expect(await storedProfile(term, 'many')).toBeUndefined();
    // Three are fine; other coupon codes do not count.
    expect((await upload(term, 'three', [guess(), guess(), guess(), 'SUMMER', 'X1'])).statusCode).toBe(200);
  });

  it("a terminal's failed identifications are limited to 5 a minute (429 / 1048), then even a live OTP is refused", async () => {
    const term = await setupTerminal(t);
    const { otp, profileId } = await liveOtp(term);
    for (let i = 0; i < IDENTIFICATION_LIMITS.perCaller; i += 1) {
      expect((await upload(term, `g-${i}`, [guess()])).statusCode).toBe(200);
    }
    const refused = await upload(term, 'g-over', [guess()]);
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ ErrorId: 1048 });
    // The refusal says when the minute's window ends, in whole seconds.
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(60);
    const hit = await upload(term, 'g-live', [otp]);
    expect(hit.statusCode).toBe(429);
    expect(await storedProfile(term, 'g-live')).toBeUndefined();
    // Without the 8-digit identifiers the till goes on.
    expect((await upload(term, 'g-plain', ['SUMMER'])).statusCode).toBe(200);
    // The next window has a fresh budget.
    t.clock.advance(60_000);
    expect((await upload(term, 'g-next', [otp])).statusCode).toBe(200);
    expect(await storedProfile(term, 'g-next')).toBe(profileId);
  });

  it('a live OTP and a coupon code of the merchant do not count as failures', async () => {
    const term = await setupTerminal(t);
    const { otp, profileId } = await liveOtp(term);
    const code = '12345678';
    const c = await t.admin('POST', `/merchants/${encodeURIComponent(term.serviceUserName)}/campaigns`, {
      name: 'Code',
      type: 'bill',
      discount: { amount: 0.5 },
      couponCode: code,
    });
    expect(c.statusCode).toBe(201);
    for (let i = 0; i < 3 * IDENTIFICATION_LIMITS.perCaller; i += 1) {
      expect((await upload(term, `ok-${i}`, [otp, code])).statusCode).toBe(200);
    }
    expect(await storedProfile(term, 'ok-0')).toBe(profileId);
    const rewarded = await upload(term, 'ok-coupon', [code]);
    expect(rewarded.json()).toMatchObject({ Rewards: [{ GrossRewardValue: 0.5 }] });
  });

  it('the merchant-wide limit (10 a minute) holds across its terminals and instances', async () => {
    const a = await setupTerminal(t);
    const b = await setupTerminal(t, { serviceUserName: `${a.serviceUserName}-b` });
    // Terminals of one merchant: register two more under a's merchant with a's DevKey.
    const units: Terminal[] = [a];
    for (const name of ['Till 2', 'Till 3']) {
      const r = await t.app.inject({
        method: 'GET',
        url: `/api/pos/v3/trackingUnits?serviceUserName=${encodeURIComponent(a.serviceUserName)}&outletId=${a.outletId}&instanceName=${encodeURIComponent(name)}`,
        headers: { devkey: a.devKey, accept: 'application/json' },
      });
      const { trackingUnitId, checksumSecret } = r.json() as {
        trackingUnitId: string;
        checksumSecret: string;
      };
      await t.admin('POST', `/trackingUnits/${trackingUnitId}/activate`);
      units.push({
        ...a,
        trackingUnitId,
        checksumSecret,
        pos: (method, path, request = {}) =>
          posCall(t, { devKey: a.devKey, trackingUnitId, checksumSecret }, method, path, request),
      });
    }
    const [u1, u2, u3] = units as [Terminal, Terminal, Terminal];
    for (let i = 0; i < 5; i += 1) expect((await upload(u1, `m1-${i}`, [guess()])).statusCode).toBe(200);
    for (let i = 0; i < 5; i += 1)
      expect((await upload(u2, `m2-${i}`, [guess()], second)).statusCode).toBe(200);
    const third = await upload(u3, 'm3-0', [guess()]);
    expect(third.statusCode).toBe(429);
    expect(third.json()).toMatchObject({ ErrorId: 1048 });
    // Another merchant is not affected.
    expect((await upload(b, 'other', [guess()])).statusCode).toBe(200);
  });

  it('concurrent guesses from one terminal cannot pass the limit', async () => {
    const term = await setupTerminal(t);
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        upload(term, `c-${i}`, [guess()], i % 2 === 0 ? second : undefined),
      ),
    );
    const statuses = answers.map((r) => r.statusCode);
    expect(statuses.filter((s) => s === 200)).toHaveLength(IDENTIFICATION_LIMITS.perCaller);
    expect(statuses.filter((s) => s === 429)).toHaveLength(20 - IDENTIFICATION_LIMITS.perCaller);
  });

  it('failures and refusals are counted in /metrics', async () => {
    const term = await setupTerminal(t);
    for (let i = 0; i < 6; i += 1) await upload(term, `x-${i}`, [guess()]);
    await upload(term, 'x-many', [guess(), guess(), guess(), guess()]);
    const metrics = (await t.app.inject('/metrics')).body;
    const value = (line: RegExp) => Number(line.exec(metrics)?.[1] ?? 'NaN');
    expect(value(/^punchcard_identification_failures_total (\d+)$/m)).toBeGreaterThanOrEqual(5);
    expect(
      value(/^punchcard_identification_refusals_total\{reason="caller_limit"\} (\d+)$/m),
    ).toBeGreaterThanOrEqual(1);
    expect(
      value(/^punchcard_identification_refusals_total\{reason="too_many_candidates"\} (\d+)$/m),
    ).toBeGreaterThanOrEqual(1);
  });
});
