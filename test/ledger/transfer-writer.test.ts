import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, databases, startApp } from '../support/harness.js';
import { expectLedgerSound } from '../checkout/checkout-support.js';
import { type LedgerFixture, ledgerFixture, operatorMeta } from './ledger-support.js';
import { TransferWriter } from '../../src/ledger/transfer-write.store.js';
import type { PostResult } from '../../src/ledger/ledger.store.js';

/**
 * Single top-ups and withdrawals written with group commit (src/ledger/transfer-write.store.ts):
 * each request of a batch is decided alone, in the order given for its card, as if it were booked
 * by itself; a repeated transactionId books once.
 */
describe.each(databases)('single postings written together on %s', (kind) => {
  let t: TestApp;
  let writer: TransferWriter;
  let fixture: LedgerFixture;
  let merchant: number;
  let liability: number;
  const account = () => fixture.account();
  const balance = (id: number) => fixture.balance(id);
  let seq = 0;
  /** A top-up (positive) or withdrawal (negative) of an account, as the card rules plan it. */
  const post = (accountId: number, delta: number, transactionId = `transfer-writer-${++seq}`) =>
    writer.post({
      plan: {
        kind: delta > 0 ? 'top_up' : 'withdrawal',
        debitAccountId: delta > 0 ? liability : accountId,
        creditAccountId: delta > 0 ? accountId : liability,
        amountMinor: Math.abs(delta),
        customerAccountId: accountId,
        customerDeltaMinor: delta,
        guardMinBalanceMinor: delta > 0 ? 0 : -delta,
        guardMaxBalanceMinor: null,
      },
      meta: operatorMeta(merchant, transactionId),
      card: null,
    });
  const statuses = (results: PostResult[]) => results.map((r) => r.status);

  beforeAll(async () => {
    t = await startApp(kind);
    fixture = await ledgerFixture(t);
    ({ merchant, liability } = fixture);
    writer = new TransferWriter(t.database, { concurrency: 1, maxBatch: 64 });
  });
  afterAll(async () => {
    await expectLedgerSound(t);
    await t.close();
  });

  it('withdrawals of one card in one batch are decided one after the other on its balance', async () => {
    const a = await account();
    const b = await account();
    await Promise.all([post(a, 300), post(b, 100)]);
    // Sent in the same turn, so written as one batch: 2.00 of 3.00, then 2.00 is refused, 1.00 still fits.
    const ids = [1, 2, 3, 4].map((i) => `transfer-writer-batch-${++seq}-${i}`);
    const results = await Promise.all([
      post(a, -200, ids[0]),
      post(b, -150, ids[1]),
      post(a, -200, ids[2]),
      post(a, -100, ids[3]),
    ]);
    expect(statuses(results)).toEqual(['posted', 'guard_failed', 'guard_failed', 'posted']);
    // One batch: the transfers booked were written by one transaction.
    const written = await sql<{ n: string }>`
      SELECT count(DISTINCT xmin::text) AS n FROM ledger_transfers WHERE transaction_id = ANY (${ids}::text[])`.execute(
      t.database.db,
    );
    expect(Number(written.rows[0]?.n)).toBe(1);
    expect(results.map((r) => (r.status === 'posted' ? r.balanceAfterMinor : null))).toEqual([
      100,
      null,
      null,
      0,
    ]);
    expect(await balance(a)).toBe(0);
    expect(await balance(b)).toBe(100);
  });

  it('a transactionId repeated within a batch books once; the other requests of the batch are booked', async () => {
    const a = await account();
    const b = await account();
    const repeated = `transfer-writer-repeated-${++seq}`;
    const results = await Promise.all([
      post(a, 500, repeated),
      post(b, 70),
      post(a, 500, repeated),
      post(b, 30),
    ]);
    expect(statuses(results)).toEqual(['posted', 'posted', 'duplicate', 'posted']);
    expect(await balance(a)).toBe(500);
    expect(await balance(b)).toBe(100);
  });

  it('a closed account refuses its requests only', async () => {
    const open = await account();
    const closed = await account();
    await Promise.all([post(open, 100), post(closed, 100)]);
    await sql`UPDATE ledger_accounts SET status = 'closed' WHERE id = ${closed}`.execute(t.database.db);
    const results = await Promise.all([post(closed, -50), post(open, -50)]);
    expect(statuses(results)).toEqual(['guard_failed', 'posted']);
    expect(await balance(closed)).toBe(100);
    expect(await balance(open)).toBe(50);
  });
});
