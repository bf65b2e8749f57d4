import { sql } from 'kysely';
import type { TestApp } from '../support/harness.js';
import { setupCheckout, callerOf } from '../checkout/checkout-support.js';

/** A merchant with its EUR liability account, and customer accounts made and read by SQL. */
export interface LedgerFixture {
  readonly merchant: number;
  readonly liability: number;
  account(): Promise<number>;
  balance(id: number): Promise<number>;
}

export async function ledgerFixture(t: TestApp): Promise<LedgerFixture> {
  const merchant = (await callerOf(t, await setupCheckout(t))).merchantId;
  const r = await sql<{ id: number }>`
    INSERT INTO ledger_accounts (merchant_id, kind, currency) VALUES (${merchant}, 'liability', 'EUR')
    ON CONFLICT (merchant_id, currency) WHERE kind = 'liability' DO UPDATE SET kind = 'liability'
    RETURNING id`.execute(t.database.db);
  return {
    merchant,
    liability: Number(r.rows[0]?.id),
    async account() {
      const a = await sql<{ id: number }>`
        INSERT INTO ledger_accounts (merchant_id, kind, currency) VALUES (${merchant}, 'card', 'EUR')
        RETURNING id`.execute(t.database.db);
      return Number(a.rows[0]?.id);
    },
    async balance(id) {
      const b = await sql<{
        b: string;
      }>`SELECT balance_minor AS b FROM ledger_accounts WHERE id = ${id}`.execute(t.database.db);
      return Number(b.rows[0]?.b);
    },
  };
}
