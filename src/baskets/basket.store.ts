import { type Kysely, type Transaction, sql } from 'kysely';
import type { BasketRef } from '../loyalty/points.store.js';
import type { DB } from '../store/schema.js';
import type { ReturnRequest, StoredGrant, StoredResult, StoredReturn } from './basket-model.js';

/**
 * The basket domain's queries (the upload's write is `BasketWriter`, src/baskets/basket-write.store.ts).
 * Rows come back with their JSON columns typed by the schema (src/store/schema.ts).
 */

/** Whether the basket is granted (an upload that wrote nothing asks, to tell 11010 from a stale terminal). */
export async function isGranted(db: Kysely<DB>, unitId: string, basketId: string): Promise<boolean> {
  const row = await db
    .selectFrom('baskets')
    .select('granted_at')
    .where('tracking_unit_id', '=', unitId)
    .where('basket_id', '=', basketId)
    .executeTakeFirst();
  return Boolean(row?.granted_at);
}

export interface LockedBasket {
  readonly body: unknown;
  readonly currency: string;
  readonly result: StoredResult;
  readonly grantedAt: Date | string | null;
  readonly grant: StoredGrant | null;
  /** The consumer the basket was bought by: its profile, else its card's id. */
  readonly profileId: number | null;
  readonly consumerToken: string | null;
}

/** The basket under a row lock (grant and return hold it for their whole transaction). */
export async function lockBasket(
  trx: Transaction<DB>,
  unitId: string,
  basketId: string,
): Promise<LockedBasket | null> {
  const row = await trx
    .selectFrom('baskets')
    .select(['body', 'currency', 'result', 'granted_at', 'grant_result', 'profile_id', 'consumer_token'])
    .where('tracking_unit_id', '=', unitId)
    .where('basket_id', '=', basketId)
    .forUpdate()
    .executeTakeFirst();
  if (!row) return null;
  return {
    body: row.body,
    currency: row.currency,
    result: row.result,
    grantedAt: row.granted_at,
    grant: row.grant_result,
    profileId: row.profile_id,
    consumerToken: row.consumer_token,
  };
}

/** Earlier returns of the basket, each as requested and as stored. */
export async function basketReturns(
  trx: Transaction<DB>,
  unitId: string,
  basketId: string,
): Promise<{ request: ReturnRequest; stored: StoredReturn }[]> {
  const rows = await trx
    .selectFrom('basket_returns')
    .select(['body', 'response'])
    .where('tracking_unit_id', '=', unitId)
    .where('basket_id', '=', basketId)
    .execute();
  return rows.map((r) => ({ request: r.body, stored: r.response }));
}

/**
 * Stores a return with the basket's consumer and the line gross it took back, which a spend
 * tier's measure subtracts (`tier_measures`).
 */
export async function recordReturn(
  trx: Transaction<DB>,
  ref: BasketRef,
  consumer: { readonly profileId: number | null; readonly consumerToken: string | null },
  request: ReturnRequest,
  stored: StoredReturn,
  nowMs: number,
): Promise<void> {
  await trx
    .insertInto('basket_returns')
    .values({
      merchant_id: ref.merchantId,
      tracking_unit_id: ref.trackingUnitId,
      basket_id: ref.basketId,
      return_id: request.ReturnId,
      body: JSON.stringify(request),
      response: JSON.stringify(stored),
      created_at: new Date(nowMs),
      profile_id: consumer.profileId,
      consumer_token: consumer.consumerToken,
      returned_gross_minor: stored.booking.returnedGrossMinor ?? null,
    })
    .execute();
}

declare module '../store/schema.js' {
  interface JsonShapes {
    /** The body as the till sent it (read only for baskets uploaded before `result.basket`). */
    'baskets.body': object;
    'baskets.result': StoredResult;
    'baskets.grant_result': StoredGrant;
    'basket_returns.body': ReturnRequest;
    'basket_returns.response': StoredReturn;
  }
}

/** A basket as the operator reads it: its state and its receipt. */
export interface OperatorBasket {
  readonly outletId: number;
  readonly uploadedAt: Date;
  readonly grantedAt: Date | null;
  readonly redeemedInPos: boolean | null;
  readonly profileId: number | null;
  readonly receiptId: string | null;
  readonly returns: number;
}

export async function readBasket(
  db: Kysely<DB>,
  merchantId: number,
  unitId: string,
  basketId: string,
): Promise<OperatorBasket | undefined> {
  const row = await db
    .selectFrom('baskets as b')
    .select((eb) => [
      'b.outlet_id',
      'b.uploaded_at',
      'b.granted_at',
      'b.redeemed_in_pos',
      'b.profile_id',
      'b.grant_result',
      eb
        .selectFrom('basket_returns as r')
        .select(eb.fn.countAll<number>().as('n'))
        .whereRef('r.tracking_unit_id', '=', 'b.tracking_unit_id')
        .whereRef('r.basket_id', '=', 'b.basket_id')
        .as('returns'),
    ])
    .where('b.merchant_id', '=', merchantId)
    .where('b.tracking_unit_id', '=', unitId)
    .where('b.basket_id', '=', basketId)
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    outletId: row.outlet_id,
    uploadedAt: new Date(row.uploaded_at),
    grantedAt: row.granted_at === null ? null : new Date(row.granted_at),
    redeemedInPos: row.redeemed_in_pos,
    profileId: row.profile_id,
    receiptId: row.grant_result?.receiptId ?? null,
    returns: Number(row.returns ?? 0),
  };
}

/** A basket with what its receipt shows of the merchant, the outlet and the consumer's language. */
export async function basketForReceipt(db: Kysely<DB>, merchantId: number, unitId: string, basketId: string) {
  return db
    .selectFrom('baskets as b')
    .innerJoin('merchants as m', 'm.id', 'b.merchant_id')
    .leftJoin('outlets as o', (j) =>
      j.onRef('o.merchant_id', '=', 'b.merchant_id').onRef('o.id', '=', 'b.outlet_id'),
    )
    .leftJoin('profiles as p', 'p.id', 'b.profile_id')
    .select([
      'b.body',
      'b.result',
      'b.grant_result',
      'b.granted_at',
      'b.currency',
      'b.timestamp_utc',
      'b.timestamp_offset_minutes',
      'm.display_name',
      'm.time_zone',
      'm.legal_name',
      'm.legal_address',
      'm.tax_number',
      'b.uploaded_at',
      'b.consumer_token',
      'b.gift_card_id',
      'b.profile_id',
      'o.name as outlet_name',
      'o.street',
      'o.postal_index',
      'o.city',
      'p.language',
      sql<boolean>`b.bill_pdf IS NOT NULL`.as('has_pdf'),
    ])
    .where('b.merchant_id', '=', merchantId)
    .where('b.tracking_unit_id', '=', unitId)
    .where('b.basket_id', '=', basketId)
    .executeTakeFirst();
}

/** The returns of a basket, oldest first. */
export async function basketReturnsOf(db: Kysely<DB>, unitId: string, basketId: string) {
  return db
    .selectFrom('basket_returns')
    .select(['body', 'response', 'created_at'])
    .where('tracking_unit_id', '=', unitId)
    .where('basket_id', '=', basketId)
    .orderBy('created_at')
    .execute();
}

/** The BillPdf the till sent with a granted basket, if any. */
export async function grantedBillPdf(
  db: Kysely<DB>,
  merchantId: number,
  unitId: string,
  basketId: string,
): Promise<Buffer | null> {
  const row = await db
    .selectFrom('baskets')
    .select('bill_pdf')
    .where('merchant_id', '=', merchantId)
    .where('tracking_unit_id', '=', unitId)
    .where('basket_id', '=', basketId)
    .where('granted_at', 'is not', null)
    .executeTakeFirst();
  return row?.bill_pdf ?? null;
}

/**
 * What the till booked from stored balances while the basket was open (uploaded before, granted at
 * or after it; docs/decisions.md, "Receipts a shop can hand out"): its withdrawals from the
 * account of the basket's profile or of a card the upload named (consumerIdentToken, giftCardId),
 * each with whether that account is a gift card's.
 */
export async function tillPaymentsOf(
  db: Kysely<DB>,
  merchantId: number,
  basket: {
    unitId: string;
    uploadedAt: Date;
    grantedAt: Date;
    profileId: number | null;
    tokens: readonly string[];
  },
): Promise<{ amountMinor: number; giftCard: boolean }[]> {
  const named =
    basket.tokens.length === 0
      ? []
      : await db
          .selectFrom('cards')
          .select(['account_id', 'token_type'])
          .where('merchant_id', '=', merchantId)
          .where('token_id', 'in', [...basket.tokens])
          .execute();
  const profile =
    basket.profileId === null
      ? undefined
      : await db
          .selectFrom('profiles')
          .select('account_id')
          .where('merchant_id', '=', merchantId)
          .where('id', '=', basket.profileId)
          .executeTakeFirst();
  const giftAccounts = new Set(named.filter((c) => c.token_type === 1).map((c) => c.account_id));
  const accounts = [
    ...new Set([...named.map((c) => c.account_id), ...(profile ? [profile.account_id] : [])]),
  ];
  if (accounts.length === 0) return [];
  const rows = await db
    .selectFrom('ledger_transfers')
    .select(['debit_account_id', 'amount_minor'])
    .where('merchant_id', '=', merchantId)
    .where('kind', '=', 'withdrawal')
    .where('tracking_unit_id', '=', basket.unitId)
    .where('debit_account_id', 'in', accounts)
    .where('created_at', '>=', basket.uploadedAt)
    .where('created_at', '<=', basket.grantedAt)
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ amountMinor: r.amount_minor, giftCard: giftAccounts.has(r.debit_account_id) }));
}
