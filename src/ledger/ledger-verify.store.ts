import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';

export interface LedgerReport {
  readonly ok: boolean;
  readonly accounts: number;
  readonly transfers: number;
  readonly violations: string[];
}

/**
 * The ledger check (`npm run ledger:verify`, and after every concurrency test):
 * - every transfer debits and credits two different accounts of its own merchant and currency,
 *   so debits equal credits, per transfer and per merchant and currency;
 * - every cached customer balance equals the sum of its postings (credits minus debits);
 * - no customer balance, cached or summed, is below zero;
 * - the liability accounts mirror the customer accounts: all balances of a merchant and
 *   currency add up to zero.
 */
export async function verifyLedger(db: Kysely<DB>): Promise<LedgerReport> {
  const violations: string[] = [];

  const badTransfers = await sql<{ id: number; problem: string }>`
    SELECT t.id,
           CASE WHEN d.id IS NULL OR c.id IS NULL THEN 'account missing'
                WHEN d.merchant_id <> t.merchant_id OR c.merchant_id <> t.merchant_id THEN 'account of another merchant'
                WHEN d.currency <> t.currency OR c.currency <> t.currency THEN 'currency differs'
                WHEN t.amount_minor <= 0 THEN 'amount not positive'
                ELSE 'debit and credit on one account' END AS problem
      FROM ledger_transfers t
      LEFT JOIN ledger_accounts d ON d.id = t.debit_account_id
      LEFT JOIN ledger_accounts c ON c.id = t.credit_account_id
     WHERE d.id IS NULL OR c.id IS NULL OR d.merchant_id <> t.merchant_id OR c.merchant_id <> t.merchant_id
        OR d.currency <> t.currency OR c.currency <> t.currency OR t.amount_minor <= 0
        OR t.debit_account_id = t.credit_account_id
     LIMIT 100`.execute(db);
  for (const r of badTransfers.rows) violations.push(`transfer ${r.id}: ${r.problem}`);

  const accounts = await sql<{
    id: number;
    merchant_id: number;
    kind: string;
    currency: string;
    cached: number;
    summed: string;
  }>`
    SELECT a.id, a.merchant_id, a.kind, a.currency, a.balance_minor AS cached,
           (COALESCE(c.total, 0) - COALESCE(d.total, 0))::text AS summed
      FROM ledger_accounts a
      LEFT JOIN (SELECT credit_account_id AS id, sum(amount_minor) AS total FROM ledger_transfers
                  GROUP BY credit_account_id) c ON c.id = a.id
      LEFT JOIN (SELECT debit_account_id AS id, sum(amount_minor) AS total FROM ledger_transfers
                  GROUP BY debit_account_id) d ON d.id = a.id
     ORDER BY a.id`.execute(db);
  const totals = new Map<string, bigint>();
  for (const a of accounts.rows) {
    const summed = BigInt(a.summed);
    const key = `merchant ${a.merchant_id} ${a.currency.trim()}`;
    totals.set(key, (totals.get(key) ?? 0n) + summed);
    if (a.kind === 'liability') continue;
    if (BigInt(a.cached) !== summed) {
      violations.push(`account ${a.id} (${a.kind}): cached balance ${a.cached} <> sum of postings ${summed}`);
    }
    if (summed < 0n || a.cached < 0) {
      violations.push(`account ${a.id} (${a.kind}): balance below zero (${summed})`);
    }
  }
  for (const [key, total] of totals) {
    if (total !== 0n) violations.push(`${key}: debits and credits differ by ${total}`);
  }

  const count = await sql<{ n: number }>`SELECT count(*)::int AS n FROM ledger_transfers`.execute(db);
  return {
    ok: violations.length === 0,
    accounts: accounts.rows.length,
    transfers: count.rows[0]?.n ?? 0,
    violations,
  };
}
