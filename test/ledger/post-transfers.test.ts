import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { expectLedgerSound } from '../checkout/checkout-support.js';
import { type LedgerFixture, anotherMerchant, ledgerFixture, operatorMeta } from './ledger-support.js';
import { postMerge } from '../../src/ledger/ledger.store.js';
import { planMerge } from '../../src/ledger/rules/posting-rules.js';

/**
 * The ledger's one posting function (src/ledger/sql/post_transfers.sql): postings of an account
 * apply in the order given, each guard moved by the postings before it; an account whose guard
 * does not hold books none of its postings; a repeated transaction id books nothing.
 */
interface Posting {
  account: number;
  delta: number;
  floor: number;
  ceiling?: number;
  id: string;
  /** The transfer's other account (default: the merchant's liability account). */
  other?: number;
}

describe.each(databases)('postings as a batch on %s', (kind) => {
  let t: TestApp;
  let fixture: LedgerFixture;
  let merchant: number;
  let liability: number;
  const account = () => fixture.account();
  const balance = (id: number) => fixture.balance(id);
  let seq = 0;
  const post = async (postings: Posting[]): Promise<{ ord: number; after: number }[]> => {
    const col = <T>(f: (p: Posting) => T): T[] => postings.map(f);
    const r = await sql<{ ord: number; balance_after_minor: string }>`
      SELECT ord, balance_after_minor FROM post_transfers(
        ${col(() => merchant)}::bigint[], ${col((p) => p.account)}::bigint[], ${col((p) => p.delta)}::bigint[],
        ${col((p) => p.floor)}::bigint[], ${col((p) => p.ceiling ?? null)}::bigint[],
        ${col(() => new Date().toISOString())}::timestamptz[], ${col(() => 'EUR')}::text[],
        ${col((p) => p.id)}::text[], ${col((p) => (p.delta > 0 ? 'top_up' : 'withdrawal'))}::text[],
        ${col((p) => (p.delta > 0 ? (p.other ?? liability) : p.account))}::bigint[],
        ${col((p) => (p.delta > 0 ? p.account : (p.other ?? liability)))}::bigint[], ${col((p) => Math.abs(p.delta))}::bigint[],
        ${col(() => null)}::bigint[], ${col(() => null)}::text[], ${col(() => null)}::text[],
        ${col(() => 'operator')}::text[], ${col(() => null)}::text[])`.execute(t.database.db);
    return r.rows.map((x) => ({ ord: x.ord, after: Number(x.balance_after_minor) }));
  };
  const id = () => `post-transfers-${++seq}`;

  beforeAll(async () => {
    t = await startApp(kind);
    fixture = await ledgerFixture(t);
    ({ merchant, liability } = fixture);
  });
  afterAll(async () => {
    await expectLedgerSound(t);
    await t.close();
  });

  it('each posting of an account sees the balance the postings before it left', async () => {
    const a = await account();
    const b = await account();
    expect(await post([{ account: a, delta: 1000, floor: 0, id: id() }])).toEqual([{ ord: 1, after: 1000 }]);
    expect(await post([{ account: b, delta: 50, floor: 0, id: id() }])).toEqual([{ ord: 1, after: 50 }]);
    const booked = await post([
      { account: a, delta: -400, floor: 400, id: id() },
      { account: b, delta: -100, floor: 100, id: id() },
      { account: a, delta: -500, floor: 500, id: id() },
    ]);
    // b cannot pay 1.00 from 0.50: none of its postings; a pays both, in the order given.
    expect(booked).toEqual([
      { ord: 1, after: 600 },
      { ord: 3, after: 100 },
    ]);
    expect(await balance(a)).toBe(100);
    expect(await balance(b)).toBe(50);
  });

  it('an account whose guard fails on a later posting books none of its postings', async () => {
    const a = await account();
    await post([{ account: a, delta: 100, floor: 0, id: id() }]);
    // 0.60 then 0.60 from 1.00: the second finds 0.40 before it, below its floor.
    expect(
      await post([
        { account: a, delta: -60, floor: 60, id: id() },
        { account: a, delta: -60, floor: 60, id: id() },
      ]),
    ).toEqual([]);
    expect(await balance(a)).toBe(100);
  });

  it('a ceiling holds on the balance before the posting', async () => {
    const a = await account();
    await post([{ account: a, delta: 100, floor: 0, id: id() }]);
    expect(await post([{ account: a, delta: 50, floor: 0, ceiling: 60, id: id() }])).toEqual([]);
    expect(await post([{ account: a, delta: 50, floor: 0, ceiling: 100, id: id() }])).toEqual([
      { ord: 1, after: 150 },
    ]);
    // In a batch, the second posting's ceiling holds on what the first left (2.00 > 1.60).
    expect(
      await post([
        { account: a, delta: 50, floor: 0, ceiling: 200, id: id() },
        { account: a, delta: 50, floor: 0, ceiling: 160, id: id() },
      ]),
    ).toEqual([]);
    expect(await balance(a)).toBe(150);
  });

  it('a repeated transaction id books nothing of the batch', async () => {
    const a = await account();
    const first = id();
    await post([{ account: a, delta: 100, floor: 0, id: first }]);
    await expect(
      post([
        { account: a, delta: 10, floor: 0, id: id() },
        { account: a, delta: 10, floor: 0, id: first },
      ]),
    ).rejects.toThrow();
    expect(await balance(a)).toBe(100);
  });

  // The transfers carry no foreign keys (migration 0048): post_transfers checks the accounts they
  // name, and accounts are never removed (docs/decisions.md, "The ledger's references checked by
  // its one writer").
  const unknownAccount = async () =>
    Number(
      (await sql<{ id: string }>`SELECT max(id) + 1000 AS id FROM ledger_accounts`.execute(t.database.db))
        .rows[0]?.id,
    );
  const transfersOf = async (ids: string[]) =>
    Number(
      (
        await sql<{ n: string }>`
          SELECT count(*) AS n FROM ledger_transfers WHERE transaction_id = ANY (${ids}::text[])`.execute(
          t.database.db,
        )
      ).rows[0]?.n,
    );

  it('a posting whose other account does not exist is refused, alone or in a batch, and books nothing', async () => {
    const a = await account();
    const b = await account();
    await post([{ account: a, delta: 500, floor: 0, id: id() }]);
    await post([{ account: b, delta: 500, floor: 0, id: id() }]);
    const missing = await unknownAccount();
    const single = id();
    await expect(
      post([{ account: a, delta: -100, floor: 100, id: single, other: missing }]),
    ).rejects.toMatchObject({ code: '23503' });
    await expect(
      post([{ account: a, delta: 100, floor: 0, id: single, other: missing }]),
    ).rejects.toMatchObject({
      code: '23503',
    });
    const batch = [id(), id()];
    await expect(
      post([
        { account: a, delta: -100, floor: 100, id: batch[0] ?? '' },
        { account: b, delta: -100, floor: 100, id: batch[1] ?? '', other: missing },
      ]),
    ).rejects.toMatchObject({ code: '23503' });
    expect(await transfersOf([single, ...batch])).toBe(0);
    expect(await balance(a)).toBe(500);
    expect(await balance(b)).toBe(500);
    // The same postings naming the liability account book.
    expect(
      await post([
        { account: a, delta: -100, floor: 100, id: batch[0] ?? '' },
        { account: b, delta: -100, floor: 100, id: batch[1] ?? '' },
      ]),
    ).toEqual([
      { ord: 1, after: 400 },
      { ord: 2, after: 400 },
    ]);
  });

  it('a posting that names no account of its own merchant books nothing', async () => {
    const a = await account();
    await post([{ account: a, delta: 300, floor: 0, id: id() }]);
    const otherMerchant = await anotherMerchant(t, `post-transfers-other-${kind}`);
    const r = await sql<{ ord: number }>`
      SELECT ord FROM post_transfers(ARRAY[${otherMerchant}]::bigint[], ARRAY[${a}]::bigint[],
        ARRAY[-100]::bigint[], ARRAY[100]::bigint[], ARRAY[NULL]::bigint[], ARRAY[now()]::timestamptz[],
        ARRAY['EUR']::text[], ARRAY[${id()}]::text[], ARRAY['withdrawal']::text[], ARRAY[${a}]::bigint[],
        ARRAY[${liability}]::bigint[], ARRAY[100]::bigint[], ARRAY[NULL]::bigint[], ARRAY[NULL]::text[],
        ARRAY[NULL]::text[], ARRAY['operator']::text[], ARRAY[NULL]::text[])`.execute(t.database.db);
    expect(r.rows).toEqual([]);
    expect(await balance(a)).toBe(300);
  });

  it('an account is never deleted nor given another id or merchant; its status changes', async () => {
    const a = await account();
    await post([{ account: a, delta: 100, floor: 0, id: id() }]);
    await expect(
      sql`DELETE FROM ledger_accounts WHERE id = ${a}`.execute(t.database.db),
    ).rejects.toMatchObject({
      code: '55000',
    });
    await expect(
      sql`UPDATE ledger_accounts SET id = ${await unknownAccount()} WHERE id = ${a}`.execute(t.database.db),
    ).rejects.toMatchObject({ code: '55000' });
    await expect(
      sql`UPDATE ledger_accounts SET merchant_id = merchant_id WHERE id = ${liability}`.execute(
        t.database.db,
      ),
    ).resolves.toBeDefined();
    await sql`UPDATE ledger_accounts SET status = 'closed' WHERE id = ${a}`.execute(t.database.db);
    expect(await balance(a)).toBe(100);
  });
  it("a card's merge into a profile's account books only between accounts of its merchant", async () => {
    const card = await account();
    const profile = await account();
    await post([{ account: card, delta: 300, floor: 0, id: id() }]);
    const plan = planMerge({ cardAccountId: card, cardBalanceMinor: 300, profileAccountId: profile });
    if (plan === null) throw new Error('a funded card has a merge');
    const other = await anotherMerchant(t, `post-transfers-merge-${kind}`);
    const refused = id();
    await expect(
      t.database.db.transaction().execute((trx) => postMerge(trx, plan, operatorMeta(other, refused))),
    ).rejects.toThrow();
    expect(await transfersOf([refused])).toBe(0);
    expect(await balance(card)).toBe(300);
    expect(await balance(profile)).toBe(0);
    const merged = id();
    await t.database.db.transaction().execute((trx) => postMerge(trx, plan, operatorMeta(merchant, merged)));
    expect(await transfersOf([merged])).toBe(1);
    expect(await balance(card)).toBe(0);
    expect(await balance(profile)).toBe(300);
  });
});
