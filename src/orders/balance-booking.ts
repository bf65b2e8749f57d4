import type { Kysely, Transaction } from 'kysely';
import { type PostResult, postTransfer } from '../ledger/ledger.store.js';
import type { PlannedTransfer } from '../ledger/rules/posting-rules.js';
import type { DB } from '../store/schema.js';
import { type BalanceTransactionStatus, type StatusChange, emitStatusChange } from './balance-events.js';
import { type TransactionRow, insertTransaction } from './balance.store.js';

/**
 * A movement of a profile's balance through the checkout interface outside an order (a top-up, a
 * refund), booked as one: the posting on the ledger (`post_transfer`, under `ledgerKey`), the
 * balance transaction that names it, and that transaction's status event, in the caller's
 * transaction (docs/decisions.md, "Balance, reservations, top-ups, refunds"). An order's charge is
 * booked the same way in its statement (src/orders/sql/book_orders.sql). A posting the ledger refuses writes
 * nothing else: its outcome is answered and the caller says what the refusal means.
 */
export async function bookBalanceMovement(
  trx: Kysely<DB> | Transaction<DB>,
  movement: {
    readonly plan: PlannedTransfer;
    readonly ledgerKey: string;
    readonly transaction: TransactionRow & { readonly status: BalanceTransactionStatus };
    readonly event: Pick<StatusChange, 'profileReference' | 'basketId' | 'refundableMinor'>;
  },
  nowMs: number,
): Promise<{ posted: PostResult; events: number }> {
  const t = movement.transaction;
  const posted = await postTransfer(trx, movement.plan, {
    merchantId: t.merchantId,
    transactionId: movement.ledgerKey,
    currency: t.currency,
    cardId: null,
    tokenId: null,
    trackingUnitId: null,
    nowMs,
    authorisation: { by: 'checkout', sha256: null },
    terminal: null,
  });
  if (posted.status !== 'posted') return { posted, events: 0 };
  await insertTransaction(trx, t, nowMs);
  const events = await emitStatusChange(
    trx,
    {
      ...movement.event,
      merchantId: t.merchantId,
      transactionId: t.id,
      kind: t.kind,
      status: t.status,
      previousStatus: null,
      amountMinor: t.amountMinor,
      currency: t.currency,
    },
    nowMs,
  );
  return { posted, events };
}
