import { type Kysely, sql } from 'kysely';
import type { DB, TransferAuthorisation, TransferKind } from '../store/schema.js';

/**
 * An account's statement (docs/decisions.md, "A card's whole history" and "The consumer's
 * balance statement"): its transfers newest first, each signed as the account sees it and with the
 * balance after it. The merchant's portal and the consumer's page read the same rows.
 */
export interface StatementRow {
  /** The ledger's id of the transfer: the key a statement is paged by. */
  readonly id: number;
  readonly transactionId: string;
  readonly kind: TransferKind;
  /** Signed: credited to the account (+) or debited from it (-), minor units. */
  readonly amountMinor: number;
  /** The account's balance after this transfer: the sum of its transfers up to it. */
  readonly balanceAfterMinor: number;
  readonly trackingUnitId: string | null;
  /** The till's name when a till booked it. */
  readonly terminal: string | null;
  readonly authorisedBy: TransferAuthorisation;
  readonly createdAt: Date;
}

export interface StatementPage {
  readonly limit: number;
  /** Only transfers before this one (from the newest when null). */
  readonly beforeId: number | null;
  /** Booked from (inclusive), ms. */
  readonly fromMs?: number;
  /** Booked before (exclusive), ms. */
  readonly toMs?: number;
}

/**
 * A page of the account's statement. The running sum is taken over every transfer of the account
 * first and the page cut from it after, so the newest row's balance is the account's on every page
 * and a cut by time changes no figure.
 *
 * A customer card used before it was linked kept its loads and payments on its own account, whose
 * balance the link moved to the account (a `merge`): those transfers are the customer's history
 * too, and are read with the account's (docs/decisions.md, "A linked card's history"). The running
 * sum is then the customer's money on the account and its cards together, and a merge, a move
 * between the two, changes it by nothing and is left out.
 */
export async function accountStatement(
  db: Kysely<DB>,
  merchantId: number,
  accountId: number,
  page: StatementPage,
): Promise<StatementRow[]> {
  const merged = await db
    .selectFrom('ledger_transfers')
    .select('debit_account_id')
    .where('merchant_id', '=', merchantId)
    .where('credit_account_id', '=', accountId)
    .where('kind', '=', 'merge')
    .execute();
  const accounts = [accountId, ...merged.map((r) => r.debit_account_id)];
  const ids = sql.join(accounts.map((id) => sql`${id}`));
  const signed = sql<string>`(CASE WHEN t.credit_account_id IN (${ids}) THEN t.amount_minor ELSE 0 END
    - CASE WHEN t.debit_account_id IN (${ids}) THEN t.amount_minor ELSE 0 END)`;
  const summed = db
    .selectFrom('ledger_transfers as t')
    .select(['t.id', 't.transaction_id', 't.kind', 't.tracking_unit_id', 't.authorised_by', 't.created_at'])
    .select(signed.as('amount'))
    .select(sql<string>`sum(${signed}) OVER (ORDER BY t.id)`.as('balance_after'))
    .where('t.merchant_id', '=', merchantId)
    .where((eb) =>
      eb.or([eb('t.credit_account_id', 'in', accounts), eb('t.debit_account_id', 'in', accounts)]),
    )
    .$if(accounts.length > 1, (q) =>
      q.where((eb) =>
        eb.not(eb.and([eb('t.credit_account_id', 'in', accounts), eb('t.debit_account_id', 'in', accounts)])),
      ),
    );
  const { beforeId, fromMs, toMs } = page;
  const rows = await db
    .selectFrom(summed.as('m'))
    .leftJoin('tracking_units as u', 'u.id', 'm.tracking_unit_id')
    .select([
      'm.id',
      'm.transaction_id',
      'm.kind',
      'm.amount',
      'm.balance_after',
      'm.tracking_unit_id',
      'm.authorised_by',
      'u.instance_name',
      'm.created_at',
    ])
    .$if(beforeId !== null, (q) => q.where('m.id', '<', beforeId ?? 0))
    .$if(fromMs !== undefined, (q) => q.where('m.created_at', '>=', new Date(fromMs ?? 0)))
    .$if(toMs !== undefined, (q) => q.where('m.created_at', '<', new Date(toMs ?? 0)))
    .orderBy('m.id', 'desc')
    .limit(page.limit)
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    transactionId: r.transaction_id,
    kind: r.kind,
    amountMinor: Number(r.amount),
    balanceAfterMinor: Number(r.balance_after),
    trackingUnitId: r.tracking_unit_id,
    terminal: r.instance_name,
    authorisedBy: r.authorised_by,
    createdAt: new Date(r.created_at),
  }));
}
