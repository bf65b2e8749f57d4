import { sql } from 'kysely';
import type { TestApp } from '../support/harness.js';
import type { TransferMeta } from '../../src/ledger/ledger.store.js';
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

/** A second merchant (no accounts of its own), for postings that name another merchant's account. */
export async function anotherMerchant(t: TestApp, name: string): Promise<number> {
  const r = await sql<{ id: string }>`
    INSERT INTO merchants (service_user_name, display_name, currency, time_zone)
    VALUES (${name}, 'Other', 'EUR', 'Europe/Berlin') RETURNING id`.execute(t.database.db);
  return Number(r.rows[0]?.id);
}

/** What an operator's posting records with it: no card, token, terminal or tracking unit. */
export function operatorMeta(merchantId: number, transactionId: string): TransferMeta {
  return {
    merchantId,
    transactionId,
    currency: 'EUR',
    cardId: null,
    tokenId: null,
    trackingUnitId: null,
    nowMs: Date.now(),
    authorisation: { by: 'operator', sha256: null },
    terminal: null,
  };
}
