import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/ledger-verify.store.js';
import { verifyPoints } from '../../src/loyalty/points-verify.store.js';
import { ADMIN_TOKEN, type TestApp, databases, startApp } from '../support/harness.js';
import { twoServers } from '../support/two-servers.js';
import { type HttpAnswer, HttpClient, type PosIdentity, setupTerminalHttp } from '../support/http-pos.js';

/** 200 withdrawals of 1.00 from a card holding 100.00, all sent at once over the clients given. */
async function drain(clients: HttpClient[], who: PosIdentity, tokenId: string): Promise<HttpAnswer[]> {
  return Promise.all(
    Array.from({ length: 200 }, (_, i) => {
      const client = clients[i % clients.length];
      if (!client) throw new Error('no client');
      return client.withdraw(who, tokenId, '1.00');
    }),
  );
}

function tally(answers: HttpAnswer[]): { ok: number; insufficient: number; other: HttpAnswer[] } {
  let ok = 0;
  let insufficient = 0;
  const other: HttpAnswer[] = [];
  for (const a of answers) {
    if (a.status === 200) ok += 1;
    else if (a.status === 400 && (a.body as { ErrorId?: number }).ErrorId === 13003) insufficient += 1;
    else other.push(a);
  }
  return { ok, insufficient, other };
}

async function balanceOf(client: HttpClient, who: PosIdentity, tokenId: string): Promise<number | undefined> {
  const res = await client.pos(who, 'POST', `/baskets/${randomUUID()}`, {
    query: { giftCardId: tokenId },
    body: { Timestamp: '2026-03-02T12:00:00+01:00', HasDiscounts: false, Positions: [] },
  });
  return (res.body as { Balances?: { Balance: number }[] }).Balances?.[0]?.Balance;
}

async function fundedCard(client: HttpClient, who: PosIdentity, amount: string): Promise<string> {
  const tokenId = `gift-${randomUUID()}`;
  const reg = await client.pos(who, 'POST', `/tokens/${tokenId}`, { query: { tokentype: 'gift' } });
  expect(reg.status).toBe(200);
  expect((await client.add(who, tokenId, amount)).status).toBe(200);
  return tokenId;
}

describe.each(databases)('balance concurrency through HTTP on %s', (kind) => {
  let t: TestApp;
  let client: HttpClient;
  let who: PosIdentity;

  beforeAll(async () => {
    t = await startApp(kind);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    client = new HttpClient(`http://127.0.0.1:${port}`, ADMIN_TOKEN, 20);
    who = await setupTerminalHttp(client, `conc-${kind}-${randomUUID().slice(0, 8)}`);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('200 concurrent withdrawals of 1.00 from 100.00 over 20 connections: exactly 100 succeed', async () => {
    const tokenId = await fundedCard(client, who, '100.00');
    const result = tally(await drain([client], who, tokenId));
    expect(result.other).toEqual([]);
    expect(result.ok).toBe(100);
    expect(result.insufficient).toBe(100);
    expect(await balanceOf(client, who, tokenId)).toBe(0);
    expect((await verifyLedger(t.database.db)).violations).toEqual([]);
    expect((await verifyPoints(t.database.db)).violations).toEqual([]);
  });

  if (kind === 'postgres')
    it("a card's balance locked by another session for long holds up only its own withdrawal: the other cards' are booked meanwhile, its own answers 1010 and books once when repeated with its transactionId", async () => {
      const locked = await fundedCard(client, who, '100.00');
      const others = [await fundedCard(client, who, '10.00'), await fundedCard(client, who, '10.00')];
      const txId = `locked-${randomUUID()}`;
      await t.database.db.connection().execute(async (other) => {
        // A session of someone else's (an operator's open transaction, say) holds the card's account.
        await sql`BEGIN`.execute(other);
        const held = await sql`SELECT a.id FROM cards c JOIN ledger_accounts a ON a.id = c.account_id
                                WHERE c.token_id = ${locked} FOR UPDATE OF a`.execute(other);
        expect(held.rows).toHaveLength(1);
        const blocked = client.withdraw(who, locked, '1.00', txId);
        // Booked while the lock is still held: before, each waited behind the blocked one.
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, i) => client.withdraw(who, others[i % 2] ?? '', '0.50')),
        );
        expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 200));
        const answer = await blocked;
        expect(answer.status, JSON.stringify(answer.body)).toBe(503);
        expect((answer.body as { ErrorId?: number }).ErrorId).toBe(1010);
        await sql`ROLLBACK`.execute(other);
      });
      const again = await client.withdraw(who, locked, '1.00', txId);
      expect(again.status, JSON.stringify(again.body)).toBe(200);
      expect(await balanceOf(client, who, locked)).toBe(99);
      for (const card of others) expect(await balanceOf(client, who, card)).toBe(5);
      expect((await verifyLedger(t.database.db)).violations).toEqual([]);
    });

  if (kind === 'postgres')
    it("a card many tills book on, held by another session, leaves the database's connections to everyone else: its 30 withdrawals answer 1010, one waiting for the lock at a time, while another card's balance is read and its withdrawals booked", async () => {
      const hot = await fundedCard(client, who, '100.00');
      const other = await fundedCard(client, who, '10.00');
      const { port } = t.app.server.address() as AddressInfo;
      // The tills of the hot card, each on a connection of its own.
      const tills = new HttpClient(`http://127.0.0.1:${port}`, ADMIN_TOKEN, 30);
      try {
        await t.database.db.connection().execute(async (session) => {
          await sql`BEGIN`.execute(session);
          try {
            const held = await sql`SELECT a.id FROM cards c JOIN ledger_accounts a ON a.id = c.account_id
                                    WHERE c.token_id = ${hot} FOR UPDATE OF a`.execute(session);
            expect(held.rows).toHaveLength(1);
            const blocked = Array.from({ length: 30 }, () => tills.withdraw(who, hot, '1.00'));
            // More than the pool's connections: had each waited for the lock on one of them, nothing
            // else would have found a connection until they gave up.
            await sleep(1_000);
            const meanwhile = await Promise.race([
              Promise.all([
                balanceOf(client, who, other),
                ...Array.from({ length: 4 }, () => client.withdraw(who, other, '0.50')),
              ]),
              sleep(3_000).then(() => 'still waiting' as const),
            ]);
            expect(
              meanwhile === 'still waiting'
                ? meanwhile
                : meanwhile.map((m) => (typeof m === 'object' ? m.status : typeof m)),
            ).toEqual(['number', 200, 200, 200, 200]);
            for (const answer of await Promise.all(blocked)) {
              expect(answer.status, JSON.stringify(answer.body)).toBe(503);
              expect((answer.body as { ErrorId?: number }).ErrorId).toBe(1010);
            }
          } finally {
            await sql`ROLLBACK`.execute(session);
          }
        });
      } finally {
        await tills.close();
      }
      expect(await balanceOf(client, who, hot)).toBe(100);
      expect(await balanceOf(client, who, other)).toBe(8);
      expect((await verifyLedger(t.database.db)).violations).toEqual([]);
    });

  it('the same withdrawal with the same transactionId sent 20 times, some concurrently, books once', async () => {
    const tokenId = await fundedCard(client, who, '10.00');
    const txId = `retry-${randomUUID()}`;
    const concurrent = await Promise.all(
      Array.from({ length: 10 }, () => client.withdraw(who, tokenId, '2.50', txId)),
    );
    const sequential: HttpAnswer[] = [];
    for (let i = 0; i < 10; i += 1) sequential.push(await client.withdraw(who, tokenId, '2.50', txId));
    const all = [...concurrent, ...sequential];
    expect(all.map((a) => a.status)).toEqual(Array.from({ length: 20 }, () => 200));
    for (const a of all) {
      expect(a.body).toEqual({ TokenId: tokenId, Balance: 7.5, CurrencyISO: 'EUR', TransactionId: txId });
    }
    expect(await balanceOf(client, who, tokenId)).toBe(7.5);
    const booked = await t.database.db
      .selectFrom('ledger_transfers')
      .select('id')
      .where('transaction_id', '=', txId)
      .execute();
    expect(booked).toHaveLength(1);
    expect((await verifyLedger(t.database.db)).violations).toEqual([]);
    expect((await verifyPoints(t.database.db)).violations).toEqual([]);
  });
});

describe.runIf(databases.includes('postgres'))(
  'balance concurrency with two server instances on PostgreSQL',
  () => {
    const two = twoServers('punchcard_two');
    const { clients } = two;
    beforeAll(() => two.start(), 120_000);
    afterAll(() => two.stop());

    it('200 concurrent withdrawals spread over two instances: exactly 100 succeed, the ledger holds', async () => {
      const [first] = clients;
      if (!first) throw new Error('no server');
      const who = await setupTerminalHttp(first, `two-${randomUUID().slice(0, 8)}`);
      const tokenId = await fundedCard(first, who, '100.00');
      const result = tally(await drain(clients, who, tokenId));
      expect(result.other).toEqual([]);
      expect(result.ok).toBe(100);
      expect(result.insufficient).toBe(100);
      expect(await balanceOf(first, who, tokenId)).toBe(0);
      await two.inDatabase(async (db) => {
        expect((await verifyLedger(db)).violations).toEqual([]);
        expect((await verifyPoints(db)).violations).toEqual([]);
      });
    });
  },
);
