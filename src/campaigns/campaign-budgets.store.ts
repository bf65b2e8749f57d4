import { type Transaction, sql } from 'kysely';
import type { DB } from '../store/schema.js';

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
  for (const g of [...given].sort((a, b) => a.campaign_id - b.campaign_id)) {
    await trx
      .updateTable('campaign_budget_usage')
      .set({
        discount_minor: sql<number>`discount_minor - ${g.discount_minor}`,
        redemptions: sql<number>`redemptions - ${g.redemptions}`,
      })
      .where('merchant_id', '=', ref.merchantId)
      .where('campaign_id', '=', g.campaign_id)
      .where((eb) => eb.or([eb('period', '=', 'total'), eb('period', '=', g.period ?? 'total')]))
      .execute();
  }
}
