import { type Kysely, sql } from 'kysely';
import {
  currencyExponent,
  decimalToMinor,
  majorToMinor,
  parseDecimal,
  productToMinor,
  toSafeMinor,
} from '../shared/money.js';
import type { DB } from '../store/schema.js';
import { campaignNames } from '../campaigns/campaign-names.store.js';
import { withoutJit } from './jit.store.js';
import { type ReceiptMailFilter, basketReceiptMailIs } from '../notifications/purchase-notification.store.js';

/**
 * Baskets of one merchant for the portal: search and detail. A foreign basket is not found.
 * The list is newest first by the basket's time, ties by terminal and basket id (all descending),
 * and pages by that key (docs/decisions.md, "Finding baskets and customers").
 */

/** open: uploaded, not granted; granted: granted, nothing returned; returned: a return booked. */
export type BasketState = 'open' | 'granted' | 'returned';

export interface BasketFilter {
  merchantId: number;
  fromMs: number | null;
  toMs: number | null;
  outletId: number | null;
  trackingUnitId: string | null;
  /** A customer card (consumer token) or gift card id. */
  card: string | null;
  /** A bill number or a basket id, exactly as the till sent it. */
  number: string | null;
  state: BasketState | null;
  /** What became of its receipt's mail (docs/decisions.md, "What became of the receipt mail"). */
  receiptMail: ReceiptMailFilter | null;
  limit: number;
  /** The key of the last basket of the previous page: its time (ms), terminal and basket id. */
  after: readonly [number, string, string] | null;
}

export interface BasketListing {
  trackingUnitId: string;
  instanceName: string | null;
  basketId: string;
  billNumber: string | null;
  outletId: number;
  outletName: string | null;
  timestamp: string;
  currency: string;
  /** The till's optional TotalValue, minor units. */
  totalValueMinor: number | null;
  /**
   * Its positions summed (unit price times amount per line, rounded to the minor unit), as the
   * dashboard counts sales (docs/decisions.md, "Dashboard figures"), granted or not.
   */
  positionsTotalMinor: number;
  rewardMinor: number;
  card: string | null;
  granted: boolean;
  state: BasketState;
}

/** The positions' sum: the grant's stored column, computed by the same function before the grant. */
const positionsTotal = sql<string>`COALESCE(b.gross_minor, basket_gross_minor(b.result, b.body, b.currency))`;

/** The baskets of a page, `limit + 1` of them at most (the one more tells that more follow). */
export async function searchBaskets(db: Kysely<DB>, f: BasketFilter): Promise<BasketListing[]> {
  const returned = sql<boolean>`EXISTS (SELECT 1 FROM basket_returns r
    WHERE r.tracking_unit_id = b.tracking_unit_id AND r.basket_id = b.basket_id)`;
  let q = db
    .selectFrom('baskets as b')
    .leftJoin('tracking_units as u', 'u.id', 'b.tracking_unit_id')
    .leftJoin('outlets as o', (j) =>
      j.onRef('o.id', '=', 'b.outlet_id').onRef('o.merchant_id', '=', 'b.merchant_id'),
    )
    .select([
      'b.tracking_unit_id',
      'u.instance_name',
      'b.basket_id',
      'b.bill_number',
      'b.outlet_id',
      'o.name as outlet_name',
      'b.timestamp_utc',
      'b.currency',
      'b.total_value_minor',
      positionsTotal.as('positions_minor'),
      'b.consumer_token',
      'b.gift_card_id',
      'b.granted_at',
      sql<string | null>`b.reward_minor`.as('reward_minor'),
      returned.as('returned'),
    ])
    .where('b.merchant_id', '=', f.merchantId);
  if (f.fromMs !== null) q = q.where('b.timestamp_utc', '>=', new Date(f.fromMs));
  if (f.toMs !== null) q = q.where('b.timestamp_utc', '<', new Date(f.toMs));
  if (f.outletId !== null) q = q.where('b.outlet_id', '=', f.outletId);
  if (f.trackingUnitId !== null) q = q.where('b.tracking_unit_id', '=', f.trackingUnitId);
  const card = f.card;
  if (card !== null)
    q = q.where((eb) => eb.or([eb('b.consumer_token', '=', card), eb('b.gift_card_id', '=', card)]));
  const number = f.number;
  if (number !== null)
    q = q.where((eb) => eb.or([eb('b.bill_number', '=', number), eb('b.basket_id', '=', number)]));
  if (f.state === 'open') q = q.where('b.granted_at', 'is', null);
  if (f.state === 'granted') q = q.where('b.granted_at', 'is not', null).where(sql<boolean>`NOT ${returned}`);
  if (f.state === 'returned') q = q.where(returned);
  if (f.receiptMail !== null) q = q.where(basketReceiptMailIs('b', f.merchantId, f.receiptMail));
  const after = f.after;
  if (after !== null)
    q = q.where(
      sql<boolean>`(b.timestamp_utc, b.tracking_unit_id, b.basket_id) < (${new Date(after[0])}, ${after[1]}, ${after[2]})`,
    );
  const ordered = q
    .orderBy('b.timestamp_utc', 'desc')
    .orderBy('b.tracking_unit_id', 'desc')
    .orderBy('b.basket_id', 'desc')
    .limit(f.limit + 1);
  // The receipt-mail filter's subquery per basket makes the planner expect far more work than a
  // page reads, enough for PostgreSQL to compile the statement first (150 ms for 2 ms of work).
  const rows =
    f.receiptMail === null
      ? await ordered.execute()
      : (await withoutJit(db, (trx) => trx.executeQuery(ordered.compile()))).rows;
  return rows.map((r) => ({
    trackingUnitId: r.tracking_unit_id,
    instanceName: r.instance_name,
    basketId: r.basket_id,
    billNumber: r.bill_number,
    outletId: Number(r.outlet_id),
    outletName: r.outlet_name,
    timestamp: r.timestamp_utc.toISOString(),
    currency: r.currency.trim(),
    totalValueMinor: r.total_value_minor === null ? null : Number(r.total_value_minor),
    positionsTotalMinor: Number(r.positions_minor),
    rewardMinor: Number(r.reward_minor ?? 0),
    card: r.consumer_token ?? r.gift_card_id,
    granted: r.granted_at !== null,
    state: r.granted_at === null ? 'open' : r.returned ? 'returned' : 'granted',
  }));
}

/** What the basket page reads of the body the till sent (the POS interface's field names). */
interface StoredBasketBody {
  BillNumber?: string;
  Positions?: {
    PositionId: number;
    ProductId?: string;
    ProductName?: string;
    Unit: number;
    Amount: number;
    RegularGrossPrice?: number;
    CurrentGrossPrice?: number;
  }[];
}

export interface BasketDetail extends BasketListing {
  cardType: 'customer' | 'gift' | null;
  offsetMinutes: number;
  uploadedAt: string;
  grantedAt: string | null;
  redeemedInPos: boolean | null;
  /** The positions as the till sent them, each with the rewards the grant booked on it. */
  positions: {
    positionId: number;
    plu: string | null;
    name: string | null;
    amount: number;
    unit: number;
    unitPriceMinor: number | null;
    lineMinor: number | null;
    rewards: { name: string; couponId: number; valueMinor: number }[];
  }[];
  /** The rewards and points as the grant answered them (none before the grant). */
  rewards: { name: string; couponId: number; positionId: number; valueMajor: number }[];
  /** Not granted yet: the campaigns whose rewards its upload offered the till; [] once granted. */
  offered: { couponId: number; name: string }[];
  loyalty: { loyaltyId: number; name: string; previousPoints: number; newPoints: number }[];
  returns: {
    returnId: string;
    createdAt: string;
    /** What the till took back: the amount as it sent it (pieces, or kg for a weighed article). */
    positions: { positionId: number; amount: string }[];
    /** What the till refunded (line gross taken back less the rewards refunded); null before migration 0043. */
    valueMinor: number | null;
  }[];
}

export async function basketDetail(
  db: Kysely<DB>,
  merchantId: number,
  trackingUnitId: string,
  basketId: string,
): Promise<BasketDetail | null> {
  const r = await db
    .selectFrom('baskets as b')
    .leftJoin('tracking_units as u', 'u.id', 'b.tracking_unit_id')
    .leftJoin('outlets as o', (j) =>
      j.onRef('o.id', '=', 'b.outlet_id').onRef('o.merchant_id', '=', 'b.merchant_id'),
    )
    .select([
      'b.tracking_unit_id',
      'u.instance_name',
      'b.basket_id',
      'b.body',
      'b.outlet_id',
      'o.name as outlet_name',
      'b.timestamp_utc',
      'b.timestamp_offset_minutes',
      'b.currency',
      'b.total_value_minor',
      positionsTotal.as('positions_minor'),
      'b.consumer_token',
      'b.gift_card_id',
      'b.uploaded_at',
      'b.granted_at',
      'b.redeemed_in_pos',
      'b.grant_result',
      sql<string | null>`b.reward_minor`.as('reward_minor'),
      sql<{ id: number }[] | null>`b.result->'engine'->'campaigns'`.as('offered_refs'),
    ])
    .where('b.merchant_id', '=', merchantId)
    .where('b.tracking_unit_id', '=', trackingUnitId)
    .where('b.basket_id', '=', basketId)
    .executeTakeFirst();
  if (!r) return null;
  const returns = await db
    .selectFrom('basket_returns')
    .select([
      'return_id',
      'created_at',
      'body',
      'returned_gross_minor',
      sql<string | null>`response->'booking'->>'refundedMinor'`.as('refunded_minor'),
    ])
    .where('merchant_id', '=', merchantId)
    .where('tracking_unit_id', '=', trackingUnitId)
    .where('basket_id', '=', basketId)
    .orderBy('created_at')
    .execute();
  // Not granted yet: the campaigns its upload offered the till (the refs the grant evaluates with).
  const offeredIds = r.granted_at === null ? (r.offered_refs ?? []).map((x) => x.id) : [];
  const offered = [...(await campaignNames(db, merchantId, offeredIds))]
    .sort(([a], [b]) => a - b)
    .map(([couponId, name]) => ({ couponId, name }));
  // The body is the basket as the till sent it, checked against the POS schema at the upload.
  const body = r.body as StoredBasketBody;
  const currency = r.currency.trim();
  const exponent = currencyExponent(currency);
  const response = r.grant_result?.response;
  const rewards = (response?.Rewards ?? []).map((x) => ({
    name: x.Name,
    couponId: x.CouponId,
    positionId: x.RewardTriggeringPositionId,
    valueMajor: x.GrossRewardValue,
  }));
  const positions = (body.Positions ?? []).map((p) => {
    const price = p.CurrentGrossPrice ?? p.RegularGrossPrice;
    const unitPrice = price === undefined ? null : parseDecimal(price);
    const amount = parseDecimal(p.Amount);
    return {
      positionId: p.PositionId,
      plu: p.ProductId ?? null,
      name: p.ProductName ?? null,
      amount: p.Amount,
      unit: p.Unit,
      unitPriceMinor: unitPrice === null ? null : toSafeMinor(decimalToMinor(unitPrice, exponent)),
      lineMinor: unitPrice === null || amount === null ? null : productToMinor(unitPrice, amount, exponent),
      rewards: rewards
        .filter((x) => x.positionId === p.PositionId)
        .map((x) => ({
          name: x.name,
          couponId: x.couponId,
          valueMinor: majorToMinor(x.valueMajor, exponent) ?? 0,
        })),
    };
  });
  const card = r.consumer_token ?? r.gift_card_id;
  return {
    trackingUnitId: r.tracking_unit_id,
    instanceName: r.instance_name,
    basketId: r.basket_id,
    billNumber: body.BillNumber ?? null,
    outletId: Number(r.outlet_id),
    outletName: r.outlet_name,
    timestamp: r.timestamp_utc.toISOString(),
    offsetMinutes: r.timestamp_offset_minutes,
    currency,
    totalValueMinor: r.total_value_minor === null ? null : Number(r.total_value_minor),
    positionsTotalMinor: Number(r.positions_minor),
    rewardMinor: Number(r.reward_minor ?? 0),
    card,
    cardType: card === null ? null : r.consumer_token !== null ? 'customer' : 'gift',
    granted: r.granted_at !== null,
    state: r.granted_at === null ? 'open' : returns.length > 0 ? 'returned' : 'granted',
    uploadedAt: r.uploaded_at.toISOString(),
    grantedAt: r.granted_at === null ? null : r.granted_at.toISOString(),
    redeemedInPos: r.redeemed_in_pos,
    positions,
    rewards,
    offered,
    loyalty: (response?.LoyaltyInfo ?? []).map((l) => ({
      loyaltyId: l.LoyaltyId,
      name: l.Name,
      previousPoints: l.Details[0]?.PreviousPoints ?? 0,
      newPoints: l.Details[l.Details.length - 1]?.NewPoints ?? 0,
    })),
    returns: returns.map((x) => ({
      returnId: x.return_id,
      createdAt: x.created_at.toISOString(),
      positions: (
        (x.body as { Positions?: { PositionId: number; Amount: string | number }[] }).Positions ?? []
      ).map((p) => ({ positionId: p.PositionId, amount: String(p.Amount) })),
      // What the till refunded, as the dashboard counts a return: the line gross taken back less
      // the rewards it refunded; unknown for returns booked before migration 0043.
      valueMinor:
        x.returned_gross_minor === null
          ? null
          : Number(x.returned_gross_minor) - Number(x.refunded_minor ?? 0),
    })),
  };
}

/**
 * When each terminal of the merchant last uploaded a basket: the newest upload of each terminal,
 * read from the index on terminal and upload time (migration 0035), not from all its baskets.
 */
export async function terminalsLastSeen(db: Kysely<DB>, merchantId: number): Promise<Map<string, string>> {
  const rows = await sql<{ id: string; last: Date | string | null }>`
    SELECT u.id, (SELECT b.uploaded_at FROM baskets b
                   WHERE b.tracking_unit_id = u.id AND b.merchant_id = u.merchant_id
                   ORDER BY b.uploaded_at DESC LIMIT 1) AS last
      FROM tracking_units u
     WHERE u.merchant_id = ${merchantId}`.execute(db);
  const seen = new Map<string, string>();
  for (const r of rows.rows) if (r.last !== null) seen.set(r.id, new Date(r.last).toISOString());
  return seen;
}
