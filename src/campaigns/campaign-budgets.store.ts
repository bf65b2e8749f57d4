import { type Kysely, type Transaction, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import type { BudgetBooking, BudgetLeft, BudgetUsage } from './campaign-budgets.js';

/** What a booking booked of one campaign's budgets, as given back. */
interface Booked {
  readonly campaign_id: number;
  readonly period: string | null;
  readonly discount_minor: number;
  readonly redemptions: number;
}

/** Takes what bookings booked off the usage they were added to: the total and their period. */
async function takeOffUsage(
  trx: Transaction<DB>,
  merchantId: number,
  given: readonly Booked[],
): Promise<void> {
  for (const g of [...given].sort((a, b) => a.campaign_id - b.campaign_id)) {
    await trx
      .updateTable('campaign_budget_usage')
      .set({
        discount_minor: sql<number>`discount_minor - ${g.discount_minor}`,
        redemptions: sql<number>`redemptions - ${g.redemptions}`,
      })
      .where('merchant_id', '=', merchantId)
      .where('campaign_id', '=', g.campaign_id)
      .where((eb) => eb.or([eb('period', '=', 'total'), eb('period', '=', g.period ?? 'total')]))
      .execute();
  }
}

/**
 * A return that releases a campaign's usage gives back what the basket booked of the campaign's
 * budgets: its discount and its redemption, to the total and to the period it was booked in.
 */
export async function giveBackBudgets(
  trx: Transaction<DB>,
  ref: { merchantId: number; trackingUnitId: string; basketId: string },
  campaignIds: readonly number[],
  nowMs: number,
): Promise<void> {
  if (campaignIds.length === 0) return;
  const given = await trx
    .updateTable('campaign_budget_bookings')
    .set({ given_back_at: new Date(nowMs) })
    .where('merchant_id', '=', ref.merchantId)
    .where('tracking_unit_id', '=', ref.trackingUnitId)
    .where('basket_id', '=', ref.basketId)
    .where('campaign_id', 'in', campaignIds)
    .where('given_back_at', 'is', null)
    .returning(['campaign_id', 'period', 'discount_minor', 'redemptions'])
    .execute();
  await takeOffUsage(trx, ref.merchantId, given);
}

/**
 * What is left of the budgets of the merchant's campaigns among `campaignIds` that have one,
 * locked until the caller's transaction ends (`lock_campaign_budgets`): what an online order's
 * booking evaluates on. A campaign without a budget is not in the answer.
 */
export async function lockCampaignBudgets(
  trx: Transaction<DB>,
  merchantId: number,
  campaignIds: readonly number[],
  nowMs: number,
): Promise<BudgetLeft[]> {
  if (campaignIds.length === 0) return [];
  const { rows } = await sql<{ left: BudgetLeft[] | string }>`
    SELECT lock_campaign_budgets(${merchantId}::bigint, ${[...campaignIds]}::bigint[],
      ${new Date(nowMs)}::timestamptz) AS left`.execute(trx);
  const left = rows[0]?.left ?? [];
  return (typeof left === 'string' ? JSON.parse(left) : left) as BudgetLeft[];
}

/**
 * An online order's booking of its campaigns' budgets (docs/decisions.md, "A campaign with a budget
 * and online orders"): added within their limits by the rule the grants book by
 * (`add_campaign_budget_usage`, which raises when one does not fit under the lock), and kept per
 * order for a refund to give back.
 */
export async function bookOrderBudgets(
  trx: Transaction<DB>,
  ref: { merchantId: number; orderId: string },
  budgets: readonly BudgetBooking[],
  nowMs: number,
): Promise<void> {
  if (budgets.length === 0) return;
  await sql`SELECT add_campaign_budget_usage(${ref.merchantId}::bigint, ${JSON.stringify(budgets)}::json)`.execute(
    trx,
  );
  await trx
    .insertInto('order_budget_bookings')
    .values(
      budgets.map((b) => ({
        merchant_id: ref.merchantId,
        order_id: ref.orderId,
        campaign_id: b.campaignId,
        period: b.period,
        discount_minor: b.discountMinor,
        redemptions: b.redemptions,
        booked_at: new Date(nowMs),
      })),
    )
    .execute();
}

/** An order refunded in whole gives back what it booked of its campaigns' budgets. */
export async function giveBackOrderBudgets(
  trx: Transaction<DB>,
  ref: { merchantId: number; orderId: string },
  nowMs: number,
): Promise<void> {
  const given = await trx
    .updateTable('order_budget_bookings')
    .set({ given_back_at: new Date(nowMs) })
    .where('merchant_id', '=', ref.merchantId)
    .where('order_id', '=', ref.orderId)
    .where('given_back_at', 'is', null)
    .returning(['campaign_id', 'period', 'discount_minor', 'redemptions'])
    .execute();
  await takeOffUsage(trx, ref.merchantId, given);
}

/**
 * The budgets of the merchant's campaigns among `campaignIds` that have one, with what the grants
 * and orders booked of them (returns and refunds given back) in total and in the current period, the
 * period as the grant books into it (`campaign_budget_usage_of`, sql/campaign_budget_usage_of.sql).
 * Reads without locking.
 */
export async function readBudgetUsage(
  db: Kysely<DB>,
  merchantId: number,
  campaignIds: readonly number[],
  nowMs: number,
): Promise<BudgetUsage[]> {
  if (campaignIds.length === 0) return [];
  const res = await sql<{
    id: number;
    total: number | null;
    redemptions: number | null;
    period: 'day' | 'week' | 'month' | null;
    period_limit: number | null;
    period_start: string | null;
    total_used: number | null;
    redemptions_used: number | null;
    period_used: number | null;
  }>`
    SELECT * FROM campaign_budget_usage_of(${merchantId}::bigint, ${[...campaignIds]}::bigint[],
      ${new Date(nowMs)}::timestamptz)`.execute(db);
  const n = (v: number | null) => (v === null ? null : Number(v));
  return res.rows.map((r) => ({
    campaignId: Number(r.id),
    limits: {
      budget_total_minor: n(r.total),
      budget_redemptions: n(r.redemptions),
      budget_period: r.period,
      budget_period_minor: n(r.period_limit),
    },
    totalUsedMinor: Number(r.total_used ?? 0),
    redemptionsUsed: Number(r.redemptions_used ?? 0),
    periodStart: r.period_start,
    periodUsedMinor: Number(r.period_used ?? 0),
  }));
}
