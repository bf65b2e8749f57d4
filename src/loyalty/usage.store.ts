import { type Transaction, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import { type BasketRef, type Consumer, owner } from './consumer.js';

/**
 * Campaign usages: `campaign_usage_movements` is the append-only record (use, release, card-link
 * move) and `campaign_usages` its projection, one row per basket and campaign, written in the
 * same transaction (docs/decisions.md "Points history").
 */

/**
 * A return releases the basket's usage of a campaign, once: the `release` movement is appended
 * and the projection marks the usage released. False when it was released before.
 */
export async function releaseUsage(
  trx: Transaction<DB>,
  ref: BasketRef,
  campaignId: number,
  returnId: string,
  nowMs: number,
): Promise<boolean> {
  const usage = await trx
    .updateTable('campaign_usages')
    .set({ released: sql<number>`used` })
    .where('tracking_unit_id', '=', ref.trackingUnitId)
    .where('basket_id', '=', ref.basketId)
    .where('campaign_id', '=', campaignId)
    .where(sql<boolean>`released < used`)
    .returning(['merchant_id', 'profile_id', 'card_id', 'used'])
    .executeTakeFirst();
  if (!usage) return false;
  await trx
    .insertInto('campaign_usage_movements')
    .values({
      merchant_id: usage.merchant_id,
      tracking_unit_id: ref.trackingUnitId,
      basket_id: ref.basketId,
      campaign_id: campaignId,
      profile_id: usage.profile_id,
      card_id: usage.card_id,
      kind: 'release',
      count: -usage.used,
      return_id: returnId,
      link_card_id: null,
      created_at: new Date(nowMs),
    })
    .execute();
  return true;
}

/** The usages of a card linked to a profile move to the profile with its points. */
export async function moveCardUsagesToProfile(
  trx: Transaction<DB>,
  merchantId: number,
  cardId: number,
  profileId: number,
  nowMs: number,
): Promise<void> {
  const from: Consumer = { cardId };
  const to: Consumer = { profileId };
  const usages = await trx
    .updateTable('campaign_usages')
    .set({ card_id: null, profile_id: profileId })
    .where('merchant_id', '=', merchantId)
    .where('card_id', '=', cardId)
    .returning(['tracking_unit_id', 'basket_id', 'campaign_id', 'used', 'released'])
    .execute();
  if (usages.length === 0) return;
  const base = (u: (typeof usages)[number]) => ({
    merchant_id: merchantId,
    tracking_unit_id: u.tracking_unit_id,
    basket_id: u.basket_id,
    campaign_id: u.campaign_id,
    return_id: null,
    link_card_id: cardId,
    created_at: new Date(nowMs),
  });
  await trx
    .insertInto('campaign_usage_movements')
    .values(
      usages.flatMap((u) => [
        { ...base(u), ...owner(from), kind: 'move_out' as const, count: -(u.used - u.released) },
        { ...base(u), ...owner(to), kind: 'move_in' as const, count: u.used - u.released },
      ]),
    )
    .execute();
}
