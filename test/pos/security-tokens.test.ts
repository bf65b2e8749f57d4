import { createHash } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/admin/auth.js';
import { buildApp } from '../../src/app.js';
import { verifyLedger } from '../../src/ledger/ledger-verify.store.js';
import { parseV2Header, signatureV2 } from '../../src/merchants/terminal-signature.js';
import { tokens } from '../cards/cards-support.js';
import {
  ADMIN_TOKEN,
  type TestApp,
  type Terminal,
  databases,
  posCall,
  securityToken,
  setupTerminal,
  startApp,
} from '../support/harness.js';
import { sharedCompilers } from '../support/schema-compilers.js';

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

const basket = {
  Timestamp: '2026-03-02T16:59:00+01:00',
  HasDiscounts: false,
  Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 1, CurrentGrossPrice: 2.5 }],
};

describe('SecurityToken-V2 worked example (docs/security.md)', () => {
  const secret = '3f8a2c1e9b7d4f60a5c3e1d2b4f6a8c0';
  const t = 1767225600;

  it('a withdrawal without body signs to the documented signature', () => {
    expect(
      signatureV2(secret, {
        method: 'POST',
        pathWithQuery:
          '/api/pos/v3/tokens/4711/withdrawBalance?balanceToWithdraw=12.50&transactionId=till7-000123',
        timestampSeconds: t,
        body: Buffer.alloc(0),
      }),
    ).toBe('f4d7829b3260c3dd83b319a674c4ead6bbbdcdbe351a80db68b5876eb5bcb5bb');
  });

  it('a return with its JSON body signs to the documented signature', () => {
    expect(
      signatureV2(secret, {
        method: 'POST',
        pathWithQuery: '/api/pos/v3/baskets/R-1001/return',
        timestampSeconds: t,
        body: Buffer.from('{"ReturnId":"1","Positions":[{"PositionId":1,"Amount":1}]}', 'utf8'),
      }),
    ).toBe('a8af8b18096d67b8085de67e1ba2142f1e7912394ee41cc09918cda8a0d4d2b8');
  });

  it('the header is t=<seconds>,s=<64 hex> in either order; anything else is malformed', () => {
    const s = 'a'.repeat(64);
    expect(parseV2Header(`t=${t},s=${s}`)).toEqual({ timestampSeconds: t, signature: s });
    expect(parseV2Header(` s=${s.toUpperCase()} , t=${t} `)).toEqual({ timestampSeconds: t, signature: s });
    for (const bad of [
      `t=${t}`,
      `s=${s}`,
      `t=${t},s=${s.slice(1)}`,
      `t=-1,s=${s}`,
      `t=${t},t=${t},s=${s}`,
      `t=1e9,s=${s}`,
    ]) {
      expect(parseV2Header(bad), bad).toBeNull();
    }
  });
});

describe.each(databases)('SecurityTokens, secrets and keys on %s', (kind) => {
  let t: TestApp;
  /** A second instance of the service on the same database, with its own caches. */
  let second: FastifyInstance;
  let n = 0;
  const id = (prefix: string) => `${prefix}-${(n += 1)}`;

  beforeAll(async () => {
    t = await startApp(kind);
    second = await buildApp(
      { config: t.config, database: t.database, clock: t.clock, adminTokenHash: hashToken(ADMIN_TOKEN) },
      // The harness's compilers: the schemas compiled for the first instance serve the second.
      { logger: false, compilersFactory: sharedCompilers },
    );
    await second.ready();
  });
  afterAll(async () => {
    if (!t) return;
    const report = await verifyLedger(t.database.db);
    expect(report.violations).toEqual([]);
    await second.close();
    await t.close();
  });

  /** The same POS call, served by the second instance. */
  const onSecond = (term: Terminal, method: string, url: string, payload?: object) =>
    second.inject({
      method: method as 'POST',
      url: `/api/pos/v3${url}`,
      headers: {
        devkey: term.devKey,
        trackingunitid: term.trackingUnitId,
        accept: 'application/json',
        ...(payload ? { 'content-type': 'application/json' } : {}),
      },
      ...(payload ? { payload } : {}),
    });

  /** addBalance with the MD5 token, served by the second instance. */
  const addOnSecond = (
    term: { devKey: string; trackingUnitId: string },
    card: string,
    amount: string,
    secret: string,
  ) =>
    second.inject({
      method: 'POST',
      url: `/api/pos/v3/tokens/${card}/addBalance?balanceToAdd=${amount}`,
      headers: {
        devkey: term.devKey,
        trackingunitid: term.trackingUnitId,
        securitytoken: securityToken(`${card}${amount}`, secret),
        accept: 'application/json',
      },
    });

  /** A grant with the MD5 token, served by the second instance. */
  const grantOnSecond = (
    term: { devKey: string; trackingUnitId: string },
    basketId: string,
    secret: string,
  ) =>
    second.inject({
      method: 'POST',
      url: `/api/pos/v3/baskets/${basketId}/grant`,
      headers: {
        devkey: term.devKey,
        trackingunitid: term.trackingUnitId,
        securitytoken: securityToken(basketId, secret),
        accept: 'application/json',
      },
    });

  /** Whether the basket is granted. */
  const granted = async (basketId: string) =>
    (
      await t.database.db
        .selectFrom('baskets')
        .select('granted_at')
        .where('basket_id', '=', basketId)
        .executeTakeFirstOrThrow()
    ).granted_at !== null;

  /** A POS call signed with SecurityToken-V2 (and no MD5 token). */
  function signedV2(
    term: { devKey: string; trackingUnitId: string; checksumSecret: string },
    path: string,
    options: { body?: string; at?: number; secret?: string; app?: FastifyInstance; header?: string } = {},
  ): { send(): Promise<LightMyRequestResponse>; header: string } {
    const url = `/api/pos/v3${path}`;
    const ts = options.at ?? Math.floor(t.clock.nowMs() / 1000);
    const s = signatureV2(options.secret ?? term.checksumSecret, {
      method: 'POST',
      pathWithQuery: url,
      timestampSeconds: ts,
      body: Buffer.from(options.body ?? '', 'utf8'),
    });
    const header = options.header ?? `t=${ts},s=${s}`;
    const app = options.app ?? t.app;
    return {
      header,
      send: () =>
        app.inject({
          method: 'POST',
          url,
          headers: {
            devkey: term.devKey,
            trackingunitid: term.trackingUnitId,
            accept: 'application/json',
            'securitytoken-v2': header,
            ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          ...(options.body !== undefined ? { payload: options.body } : {}),
        }),
    };
  }

  const transfers = (tokenId: string) =>
    t.database.db
      .selectFrom('ledger_transfers')
      .select(['transaction_id', 'kind', 'amount_minor', 'authorised_by', 'authorisation_sha256'])
      .where('token_id', '=', tokenId)
      .orderBy('id')
      .execute();

  describe('DevKeys', () => {
    it('a DevKey is shown once at creation and stored only as its SHA-256', async () => {
      const res = await t.admin('POST', '/devKeys', { name: 'Till vendor A' });
      expect(res.statusCode).toBe(201);
      const { devKey, id: keyId } = res.json() as { devKey: string; id: number };
      expect(devKey.length).toBeGreaterThanOrEqual(40);
      const row = await sql<Record<string, unknown>>`SELECT * FROM dev_keys WHERE id = ${keyId}`.execute(
        t.database.db,
      );
      expect(row.rows).toHaveLength(1);
      const stored = JSON.stringify(row.rows[0]);
      expect(stored).not.toContain(devKey);
      expect(row.rows[0]).toMatchObject({ key_sha256: sha256(devKey), name: 'Till vendor A' });
      const list = await t.admin('GET', '/devKeys?limit=100');
      expect(list.body).not.toContain(devKey);
      expect(list.json().data).toContainEqual({
        id: keyId,
        name: 'Till vendor A',
        createdAt: expect.any(String),
        revokedAt: null,
      });
    });

    it('a DevKey is made and revoked on one clock: created when it was made, revoked after', async () => {
      const now = t.clock.ms;
      try {
        const madeAt = Math.floor(now / 86_400_000) * 86_400_000 - 26 * 86_400_000 + 7 * 3_600_000;
        t.clock.ms = madeAt;
        const made = await t.admin('POST', '/devKeys', { name: 'Till vendor C' });
        expect(made.statusCode).toBe(201);
        const keyId = (made.json() as { id: number }).id;
        t.clock.ms = madeAt + 3_600_000;
        const revoked = await t.admin('POST', `/devKeys/${keyId}/revoke`);
        expect(revoked.statusCode).toBe(200);
        expect(revoked.json()).toEqual({
          id: keyId,
          name: 'Till vendor C',
          createdAt: new Date(madeAt).toISOString(),
          revokedAt: new Date(madeAt + 3_600_000).toISOString(),
        });
      } finally {
        t.clock.ms = now;
      }
    });

    it('the terminal list names the DevKey (vendor) that registered each terminal', async () => {
      const a = await setupTerminal(t);
      const vendorB = (await t.admin('POST', '/devKeys', { name: 'Vendor B' })).json() as {
        devKey: string;
        id: number;
      };
      const outlet = a.outletId;
      const reg = await t.app.inject({
        method: 'GET',
        url: `/api/pos/v3/trackingUnits?serviceUserName=${encodeURIComponent(a.serviceUserName)}&outletId=${outlet}&instanceName=Till%202`,
        headers: { devkey: vendorB.devKey, accept: 'application/json' },
      });
      const bUnit = (reg.json() as { trackingUnitId: string }).trackingUnitId;
      const list = await t.admin('GET', `/merchants/${encodeURIComponent(a.serviceUserName)}/trackingUnits`);
      expect(list.statusCode).toBe(200);
      const units = list.json().data as { trackingUnitId: string; devKeyName: string; devKeyId: number }[];
      expect(units.find((u) => u.trackingUnitId === a.trackingUnitId)).toMatchObject({
        devKeyName: 'Till vendor',
        activated: true,
        deactivated: false,
        requireSecurityTokenV2: false,
        devKeyRevoked: false,
      });
      expect(units.find((u) => u.trackingUnitId === bUnit)).toMatchObject({
        devKeyName: 'Vendor B',
        devKeyId: vendorB.id,
        activated: false,
      });
    });

    it('a revoked DevKey stops its terminals at once on every instance (401 / 1043)', async () => {
      const term = await setupTerminal(t);
      const card = id('rv');
      await tokens(term).register(card);
      // Both instances have just served the terminal (the second remembers it for uploads and bookings).
      expect((await term.pos('POST', '/baskets/rv-1', { body: basket })).statusCode).toBe(200);
      expect((await onSecond(term, 'POST', '/baskets/rv-2', basket)).statusCode).toBe(200);
      expect((await onSecond(term, 'POST', '/baskets/rv-5', basket)).statusCode).toBe(200);
      expect((await grantOnSecond(term, 'rv-5', term.checksumSecret)).statusCode).toBe(200);
      expect((await addOnSecond(term, card, '2.00', term.checksumSecret)).statusCode).toBe(200);
      const keyId = (
        await t.database.db
          .selectFrom('tracking_units')
          .select('dev_key_id')
          .where('id', '=', term.trackingUnitId)
          .executeTakeFirstOrThrow()
      ).dev_key_id;
      const revoked = await t.admin('POST', `/devKeys/${keyId}/revoke`);
      expect(revoked.statusCode).toBe(200);
      expect(revoked.json()).toMatchObject({ id: keyId, revokedAt: expect.any(String) });

      for (const res of [
        // First, while the second instance still remembers the terminal.
        await grantOnSecond(term, 'rv-2', term.checksumSecret),
        await onSecond(term, 'POST', '/baskets/rv-3', basket),
        await onSecond(term, 'POST', '/baskets/rv-2', basket),
        await term.pos('POST', '/baskets/rv-4', { body: basket }),
        await tokens(term).add(card, '1.00'),
        await addOnSecond(term, card, '2.00', term.checksumSecret),
        await onSecond(term, 'POST', `/tokens/${card}/lock`),
        await term.pos('GET', `/merchants/${encodeURIComponent(term.serviceUserName)}/info`),
      ]) {
        expect(res.statusCode).toBe(401);
        expect(res.json()).toMatchObject({ ErrorId: 1043 });
      }
      const stored = await t.database.db
        .selectFrom('baskets')
        .select('basket_id')
        .where('tracking_unit_id', '=', term.trackingUnitId)
        .orderBy('basket_id')
        .execute();
      expect(stored.map((b) => b.basket_id)).toEqual(['rv-1', 'rv-2', 'rv-5']);
      expect(await granted('rv-2')).toBe(false);
      const list = await t.admin(
        'GET',
        `/merchants/${encodeURIComponent(term.serviceUserName)}/trackingUnits`,
      );
      expect(list.json().data).toMatchObject([{ devKeyRevoked: true }]);
      expect((await t.admin('POST', '/devKeys/999999/revoke')).statusCode).toBe(404);
    });
  });

  describe('terminals', () => {
    it('a deactivated terminal is refused at once on every instance (403 / 1042) until activated again', async () => {
      const term = await setupTerminal(t);
      const card = id('dc');
      await tokens(term).register(card);
      expect((await onSecond(term, 'POST', '/baskets/dc-1', basket)).statusCode).toBe(200);
      expect((await onSecond(term, 'POST', '/baskets/dc-3', basket)).statusCode).toBe(200);
      expect((await grantOnSecond(term, 'dc-3', term.checksumSecret)).statusCode).toBe(200);
      expect((await addOnSecond(term, card, '1.00', term.checksumSecret)).statusCode).toBe(200);
      const off = await t.admin('POST', `/trackingUnits/${term.trackingUnitId}/deactivate`);
      expect(off.json()).toEqual({
        trackingUnitId: term.trackingUnitId,
        activated: false,
        deactivated: true,
        requireSecurityTokenV2: false,
      });
      for (const res of [
        // First, while the second instance still remembers the terminal.
        await grantOnSecond(term, 'dc-1', term.checksumSecret),
        await onSecond(term, 'POST', '/baskets/dc-1', basket),
        await onSecond(term, 'POST', '/baskets/dc-2', basket),
        await tokens(term).add(card, '1.00'),
        await addOnSecond(term, card, '1.00', term.checksumSecret),
        await term.pos('POST', `/tokens/${card}/lock`),
        await term.pos('POST', '/trackingUnits', {
          query: {
            serviceUserName: term.serviceUserName,
            outletId: String(term.outletId),
            instanceName: 'X',
          },
        }),
      ]) {
        expect(res.statusCode).toBe(403);
        expect(res.json()).toMatchObject({ ErrorId: 1042 });
      }
      expect(
        (
          await t.database.db
            .selectFrom('baskets')
            .select('revision')
            .where('basket_id', '=', 'dc-1')
            .execute()
        ).map((b) => b.revision),
      ).toEqual([1]);
      expect(await granted('dc-1')).toBe(false);
      const on = await t.admin('POST', `/trackingUnits/${term.trackingUnitId}/activate`);
      expect(on.json()).toMatchObject({ activated: true, deactivated: false });
      expect((await onSecond(term, 'POST', '/baskets/dc-2', basket)).statusCode).toBe(200);
      expect((await tokens(term).add(card, '1.00')).statusCode).toBe(200);
      expect((await t.admin('POST', '/trackingUnits/nope/deactivate')).statusCode).toBe(404);
    });

    it('a rotated checksumSecret: the new one is shown once, the old token is refused and the new one accepted', async () => {
      const term = await setupTerminal(t);
      const card = id('rot');
      await tokens(term).register(card);
      expect((await tokens(term).add(card, '5.00')).statusCode).toBe(200);
      expect((await addOnSecond(term, card, '1.00', term.checksumSecret)).statusCode).toBe(200);
      expect((await onSecond(term, 'POST', '/baskets/rot-1', basket)).statusCode).toBe(200);
      const res = await t.admin('POST', `/trackingUnits/${term.trackingUnitId}/checksumSecret`);
      expect(res.statusCode).toBe(200);
      const { checksumSecret } = res.json() as { checksumSecret: string };
      expect(checksumSecret).toMatch(/^[0-9a-f]{32}$/);
      expect(checksumSecret).not.toBe(term.checksumSecret);
      const list = await t.admin(
        'GET',
        `/merchants/${encodeURIComponent(term.serviceUserName)}/trackingUnits`,
      );
      expect(list.body).not.toContain(checksumSecret);

      const old = await tokens(term).add(card, '5.00');
      expect(old.statusCode).toBe(401);
      expect(old.json()).toMatchObject({ ErrorId: 1003 });
      const rotated = { devKey: term.devKey, trackingUnitId: term.trackingUnitId, checksumSecret };
      const fresh = await posCall(t, rotated, 'POST', `/tokens/${card}/addBalance`, {
        query: { balanceToAdd: '5.00' },
        sign: `${card}5.00`,
      });
      expect(fresh.statusCode).toBe(200);
      expect(fresh.json()).toMatchObject({ Balance: 11 });
      // The second instance remembered the terminal with its old secret: it refuses the old token
      // and accepts the new one all the same, for grants and bookings.
      expect((await grantOnSecond(term, 'rot-1', term.checksumSecret)).json()).toMatchObject({
        ErrorId: 1003,
      });
      expect(await granted('rot-1')).toBe(false);
      expect((await grantOnSecond(term, 'rot-1', checksumSecret)).json()).toMatchObject({ Granted: true });
      const viaSecond = await addOnSecond(term, card, '1.00', term.checksumSecret);
      expect(viaSecond.statusCode).toBe(401);
      expect(viaSecond.json()).toMatchObject({ ErrorId: 1003 });
      expect((await addOnSecond(term, card, '1.00', checksumSecret)).json()).toMatchObject({ Balance: 12 });
      // SecurityToken-V2 keyed with the old secret is refused as well.
      const v2old = await signedV2(term, `/tokens/${card}/addBalance?balanceToAdd=5.00`).send();
      expect(v2old.json()).toMatchObject({ ErrorId: 1045 });
      expect(
        (await signedV2(rotated, `/tokens/${card}/addBalance?balanceToAdd=5.00`).send()).statusCode,
      ).toBe(200);
    });
  });

  describe('settings', () => {
    it('requiring transactionIds or SecurityToken-V2 holds at once on an instance that remembers the terminal, for bookings and grants', async () => {
      const term = await setupTerminal(t);
      const card = id('set');
      await tokens(term).register(card);
      expect((await addOnSecond(term, card, '1.00', term.checksumSecret)).statusCode).toBe(200);
      expect((await onSecond(term, 'POST', '/baskets/set-1', basket)).statusCode).toBe(200);
      await t.admin('PATCH', `/merchants/${encodeURIComponent(term.serviceUserName)}/settings`, {
        requireTransactionId: true,
      });
      const noTx = await addOnSecond(term, card, '1.00', term.checksumSecret);
      expect(noTx.statusCode).toBe(400);
      expect(noTx.json()).toMatchObject({ ErrorId: 1041 });
      await t.admin('PATCH', `/merchants/${encodeURIComponent(term.serviceUserName)}/settings`, {
        requireTransactionId: false,
      });
      expect((await addOnSecond(term, card, '1.00', term.checksumSecret)).json()).toMatchObject({
        Balance: 2,
      });
      await t.admin('PATCH', `/trackingUnits/${term.trackingUnitId}`, { requireSecurityTokenV2: true });
      expect((await grantOnSecond(term, 'set-1', term.checksumSecret)).json()).toMatchObject({
        ErrorId: 1044,
      });
      expect(await granted('set-1')).toBe(false);
      expect((await addOnSecond(term, card, '1.00', term.checksumSecret)).json()).toMatchObject({
        ErrorId: 1044,
      });
      expect(await transfers(card)).toHaveLength(2);
    });
  });

  describe('transactionId required per merchant', () => {
    it('without the setting, the MD5 token of a seen withdrawal books again with another or no transactionId', async () => {
      // The documents' MD5 token covers id and amount only: this is why merchants opt in.
      const term = await setupTerminal(t);
      const card = id('open');
      await tokens(term).register(card);
      await tokens(term).add(card, '50.00');
      expect((await tokens(term).withdraw(card, '10.00', 'tx-1')).statusCode).toBe(200);
      expect((await tokens(term).withdraw(card, '10.00', 'tx-2')).statusCode).toBe(200);
      expect((await tokens(term).withdraw(card, '10.00')).json()).toMatchObject({ Balance: 20 });
    });

    it('an opted-in merchant: transactionId is required (400 / 1041) and the MD5 token covers it, so a replay books nothing', async () => {
      const term = await setupTerminal(t);
      const path = `/merchants/${encodeURIComponent(term.serviceUserName)}/settings`;
      expect((await t.admin('GET', path)).json()).toEqual({
        serviceUserName: term.serviceUserName,
        requireTransactionId: false,
      });
      const set = await t.admin('PATCH', path, { requireTransactionId: true });
      expect(set.json()).toEqual({ serviceUserName: term.serviceUserName, requireTransactionId: true });
      const card = id('opt');
      await tokens(term).register(card);
      const call = (
        op: 'addBalance' | 'withdrawBalance',
        amount: string,
        txId: string | null,
        signed: string,
      ) =>
        term.pos('POST', `/tokens/${card}/${op}`, {
          query: {
            [op === 'addBalance' ? 'balanceToAdd' : 'balanceToWithdraw']: amount,
            ...(txId === null ? {} : { transactionId: txId }),
          },
          sign: signed,
        });

      const input = (op: string, amount: string, txId: string) => `${op}\n${card}\n${amount}\n${txId}`;
      const missing = await call('addBalance', '50.00', null, `${card}50.00`);
      expect(missing.statusCode).toBe(400);
      expect(missing.json()).toMatchObject({ ErrorId: 1041 });
      // The token of the documents (id + amount) is not enough any more.
      expect((await call('addBalance', '50.00', 'top-1', `${card}50.00`)).json()).toMatchObject({
        ErrorId: 1003,
      });
      expect((await call('addBalance', '50.00', 'top-1', `${card}50.00top-1`)).json()).toMatchObject({
        ErrorId: 1003,
      });
      expect(
        (await call('addBalance', '50.00', 'top-1', input('addBalance', '50.00', 'top-1'))).json(),
      ).toMatchObject({ Balance: 50 });

      const seen = input('withdrawBalance', '10.00', 'w-1');
      expect((await call('withdrawBalance', '10.00', 'w-1', seen)).json()).toMatchObject({ Balance: 40 });
      // The observed token replayed: with another transactionId, none, or as a top-up.
      const other = await call('withdrawBalance', '10.00', 'w-2', seen);
      expect(other.statusCode).toBe(401);
      expect(other.json()).toMatchObject({ ErrorId: 1003 });
      expect((await call('withdrawBalance', '10.00', null, seen)).json()).toMatchObject({ ErrorId: 1041 });
      expect((await call('addBalance', '10.00', 'w-1', seen)).json()).toMatchObject({ ErrorId: 1003 });
      expect((await call('addBalance', '10.00', 'w-3', seen)).json()).toMatchObject({ ErrorId: 1003 });
      // The same transactionId again is the idempotent repeat: the first answer, nothing booked.
      expect((await call('withdrawBalance', '10.00', 'w-1', seen)).json()).toMatchObject({
        Balance: 40,
        TransactionId: 'w-1',
      });
      // A transactionId with a line break could shift the parts of the input: refused.
      expect((await call('withdrawBalance', '10.00', 'w\n1', seen)).json()).toMatchObject({ ErrorId: 1000 });
      expect(await transfers(card)).toHaveLength(2);

      // The grant token of basket `<card>100` no longer adds 100 to the card.
      await term.pos('POST', `/baskets/${card}100`, { body: basket });
      const grantToken = securityToken(`${card}100`, term.checksumSecret);
      const grant = await term.pos('POST', `/baskets/${card}100/grant`, {
        headers: { securitytoken: grantToken },
      });
      expect(grant.statusCode).toBe(200);
      const moved = await term.pos('POST', `/tokens/${card}/addBalance`, {
        query: { balanceToAdd: '100', transactionId: 'g-1' },
        headers: { securitytoken: grantToken },
      });
      expect(moved.statusCode).toBe(401);
      expect(await transfers(card)).toHaveLength(2);
      expect(
        (await t.admin('PATCH', '/merchants/nobody/settings', { requireTransactionId: true })).statusCode,
      ).toBe(404);
    });

    it('every booking records what authorised it: the scheme and the SHA-256 of the token', async () => {
      const term = await setupTerminal(t);
      const card = id('auth');
      await tokens(term).register(card);
      await tokens(term).add(card, '20.00', 'a-1');
      const v2 = signedV2(term, `/tokens/${card}/withdrawBalance?balanceToWithdraw=5.00&transactionId=a-2`);
      expect((await v2.send()).statusCode).toBe(200);
      const profile = await t.admin(
        'POST',
        `/merchants/${encodeURIComponent(term.serviceUserName)}/profiles`,
        {},
      );
      const profileId = (profile.json() as { id: number }).id;
      await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: card });
      const rows = await transfers(card);
      expect(rows).toEqual([
        {
          transaction_id: 'a-1',
          kind: 'top_up',
          amount_minor: 2000,
          authorised_by: 'md5',
          authorisation_sha256: sha256(securityToken(`${card}20.00`, term.checksumSecret)),
        },
        {
          transaction_id: 'a-2',
          kind: 'withdrawal',
          amount_minor: 500,
          authorised_by: 'v2',
          authorisation_sha256: sha256(Buffer.from(v2.header.split('s=')[1] ?? '', 'hex')),
        },
        {
          transaction_id: expect.stringMatching(/^merge:/),
          kind: 'merge',
          amount_minor: 1500,
          authorised_by: 'operator',
          authorisation_sha256: null,
        },
      ]);
      // The operator reads them back, newest first.
      const listed = await t.admin(
        'GET',
        `/merchants/${encodeURIComponent(term.serviceUserName)}/transfers?tokenId=${card}&limit=2`,
      );
      expect(listed.statusCode).toBe(200);
      expect(listed.json().data).toEqual([
        expect.objectContaining({
          kind: 'merge',
          amount: 1500,
          authorisedBy: 'operator',
          authorisationSha256: null,
        }),
        expect.objectContaining({
          transactionId: 'a-2',
          kind: 'withdrawal',
          amount: 500,
          currency: 'EUR',
          tokenId: card,
          trackingUnitId: term.trackingUnitId,
          balanceAfter: 1500,
          authorisedBy: 'v2',
          authorisationSha256: rows[1]?.authorisation_sha256,
        }),
      ]);
      expect((await t.admin('GET', '/merchants/nobody/transfers')).statusCode).toBe(404);
    });
  });

  describe('SecurityToken-V2', () => {
    it('is accepted on any terminal and refused when replayed, on this or another instance (401 / 1047)', async () => {
      const term = await setupTerminal(t);
      const card = id('v2');
      await tokens(term).register(card);
      const path = `/tokens/${card}/addBalance?balanceToAdd=7.00&transactionId=v-1`;
      const call = signedV2(term, path);
      const first = await call.send();
      expect(first.statusCode).toBe(200);
      expect(first.json()).toMatchObject({ Balance: 7 });
      const again = await call.send();
      expect(again.statusCode).toBe(401);
      expect(again.json()).toMatchObject({ ErrorId: 1047 });
      const elsewhere = await signedV2(term, path, { header: call.header, app: second }).send();
      expect(elsewhere.json()).toMatchObject({ ErrorId: 1047 });
      // A retry is signed anew; the transactionId makes it book nothing.
      t.clock.advance(1000);
      const retry = await signedV2(term, path).send();
      expect(retry.json()).toMatchObject({ Balance: 7, TransactionId: 'v-1' });
      expect(await transfers(card)).toHaveLength(1);
    });

    it('a timestamp more than 300 s from the server clock is refused (401 / 1046)', async () => {
      const term = await setupTerminal(t);
      const card = id('win');
      await tokens(term).register(card);
      const now = Math.floor(t.clock.nowMs() / 1000);
      const path = (tx: string) => `/tokens/${card}/addBalance?balanceToAdd=1.00&transactionId=${tx}`;
      for (const at of [now - 301, now + 301]) {
        const res = await signedV2(term, path(`w-${at}`), { at }).send();
        expect(res.statusCode).toBe(401);
        expect(res.json()).toMatchObject({ ErrorId: 1046 });
      }
      expect((await signedV2(term, path('w-ok1'), { at: now - 299 }).send()).statusCode).toBe(200);
      expect((await signedV2(term, path('w-ok2'), { at: now + 299 }).send()).statusCode).toBe(200);
      // A signature seen inside its window is refused after it too, as outside the window.
      const call = signedV2(term, path('w-3'));
      expect((await call.send()).statusCode).toBe(200);
      t.clock.advance(301_000);
      expect((await call.send()).json()).toMatchObject({ ErrorId: 1046 });
      // Expired signatures are dropped from the replay cache by the terminal's next signature.
      expect((await signedV2(term, path('w-4')).send()).statusCode).toBe(200);
      const kept = await t.database.db
        .selectFrom('security_token_signatures')
        .select('expires_at')
        .where('tracking_unit_id', '=', term.trackingUnitId)
        .execute();
      // Left: the one signed 299 s ahead (its window runs on) and the new one.
      expect(kept).toHaveLength(2);
      for (const k of kept) expect(k.expires_at.getTime()).toBeGreaterThan(t.clock.nowMs());
    });

    it('covers method, path, query and body: a signature moved to another request is wrong (401 / 1045)', async () => {
      const term = await setupTerminal(t);
      const card = id('cov');
      await tokens(term).register(card);
      await tokens(term).add(card, '30.00');
      const ts = Math.floor(t.clock.nowMs() / 1000);
      const url = `/api/pos/v3/tokens/${card}/withdrawBalance?balanceToWithdraw=1.00&transactionId=c-1`;
      const s = signatureV2(term.checksumSecret, {
        method: 'POST',
        pathWithQuery: url,
        timestampSeconds: ts,
        body: Buffer.alloc(0),
      });
      const send = (u: string, header: string, payload?: string) =>
        t.app.inject({
          method: 'POST',
          url: u,
          headers: {
            devkey: term.devKey,
            trackingunitid: term.trackingUnitId,
            'securitytoken-v2': header,
            accept: 'application/json',
            ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(payload === undefined ? {} : { payload }),
        });
      for (const [u, header] of [
        [
          url.replace('withdrawBalance', 'addBalance').replace('balanceToWithdraw', 'balanceToAdd'),
          `t=${ts},s=${s}`,
        ],
        [url.replace('1.00', '10.00'), `t=${ts},s=${s}`],
        [url.replace('c-1', 'c-2'), `t=${ts},s=${s}`],
        [url, `t=${ts + 1},s=${s}`],
        [url, `t=${ts},s=${'0'.repeat(64)}`],
        [url, `t=${ts};s=${s}`],
        [url, 'garbage'],
      ] as const) {
        const res = await send(u, header);
        expect(res.statusCode, `${u} ${header}`).toBe(401);
        expect(res.json(), `${u} ${header}`).toMatchObject({ ErrorId: 1045 });
      }
      // The body is covered: a return signed over one body does not return another.
      const b = id('cov-b');
      await term.pos('POST', `/baskets/${b}`, {
        body: {
          ...basket,
          Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 3, CurrentGrossPrice: 2.5 }],
        },
      });
      await term.pos('POST', `/baskets/${b}/grant`, { sign: b });
      const body = '{"ReturnId":"1","Positions":[{"PositionId":1,"Amount":1}]}';
      const signed = signedV2(term, `/baskets/${b}/return`, { body });
      const tampered = await send(
        `/api/pos/v3/baskets/${b}/return`,
        signed.header,
        body.replace('"Amount":1', '"Amount":3'),
      );
      expect(tampered.json()).toMatchObject({ ErrorId: 1045 });
      const ok = await signed.send();
      expect(ok.statusCode).toBe(200);
      expect(ok.json()).toMatchObject({ ReturnId: '1' });
    });

    it('signs the body bytes as sent before Content-Encoding: a gzip body verifies', async () => {
      const term = await setupTerminal(t);
      const b = id('gz');
      await term.pos('POST', `/baskets/${b}`, { body: basket });
      await term.pos('POST', `/baskets/${b}/grant`, { sign: b });
      const body = '{"ReturnId":"9","Positions":[{"PositionId":1,"Amount":1}]}';
      const url = `/api/pos/v3/baskets/${b}/return`;
      const ts = Math.floor(t.clock.nowMs() / 1000);
      const s = signatureV2(term.checksumSecret, {
        method: 'POST',
        pathWithQuery: url,
        timestampSeconds: ts,
        body: Buffer.from(body),
      });
      const { gzipSync } = await import('node:zlib');
      const res = await t.app.inject({
        method: 'POST',
        url,
        headers: {
          devkey: term.devKey,
          trackingunitid: term.trackingUnitId,
          'securitytoken-v2': `t=${ts},s=${s}`,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
          accept: 'application/json',
        },
        payload: gzipSync(body),
      });
      expect(res.statusCode).toBe(200);
    });

    it('a terminal switched to V2 gets 401 / 1044 for the MD5 token; V2 works for it, and MD5 again once switched back', async () => {
      const term = await setupTerminal(t);
      const card = id('only');
      await tokens(term).register(card);
      const on = await t.admin('PATCH', `/trackingUnits/${term.trackingUnitId}`, {
        requireSecurityTokenV2: true,
      });
      expect(on.json()).toMatchObject({ requireSecurityTokenV2: true });
      const list = await t.admin(
        'GET',
        `/merchants/${encodeURIComponent(term.serviceUserName)}/trackingUnits`,
      );
      expect(list.json().data).toMatchObject([{ requireSecurityTokenV2: true }]);
      const md5 = await tokens(term).add(card, '3.00');
      expect(md5.statusCode).toBe(401);
      expect(md5.json()).toMatchObject({ ErrorId: 1044 });
      const b = id('only-b');
      await term.pos('POST', `/baskets/${b}`, { body: basket });
      expect((await term.pos('POST', `/baskets/${b}/grant`, { sign: b })).json()).toMatchObject({
        ErrorId: 1044,
      });
      expect((await signedV2(term, `/baskets/${b}/grant`).send()).statusCode).toBe(200);
      expect(
        (await signedV2(term, `/tokens/${card}/addBalance?balanceToAdd=3.00`).send()).json(),
      ).toMatchObject({
        Balance: 3,
      });
      await t.admin('PATCH', `/trackingUnits/${term.trackingUnitId}`, { requireSecurityTokenV2: false });
      expect((await tokens(term).add(card, '3.00')).statusCode).toBe(200);
      expect(
        (await t.admin('PATCH', '/trackingUnits/nope', { requireSecurityTokenV2: true })).statusCode,
      ).toBe(404);
    });
  });
});
