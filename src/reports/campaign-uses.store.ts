import { type Kysely, sql } from 'kysely';
import { consumerHoldings } from '../loyalty/points.store.js';
import type { DB } from '../store/schema.js';

/** A campaign with a usage limit per customer and how many of its uses one customer has had. */
export interface CampaignUse {
  readonly campaignId: number;
  readonly name: string;
  /** The campaign's usage limit per customer. */
  readonly limit: number;
  /** Uses the customer has had, at the tills and in online orders, returns and whole refunds released. */
  readonly used: number;
  /** Paused by the merchant: it gives nothing now, whatever is left. */
  readonly paused: boolean;
}

/**
 * The merchant's campaigns not ended that have a usage limit per customer, oldest first, with the
 * uses one customer has had of each (docs/decisions.md, "A customer's uses on their page"): the
 * count the tills and the orders read (`consumer_state`), so the page says why a customer is given
 * such a campaign no more.
 */
export async function customerCampaignUses(
  db: Kysely<DB>,
  merchantId: number,
  profileId: number,
  nowMs: number,
): Promise<CampaignUse[]> {
  const limitText = sql<string | null>`engine->>'usageLimitPerConsumer'`;
  const campaigns = await db
    .selectFrom('campaigns')
    .select(['id', 'name', 'paused_at', limitText.as('usage_limit')])
    .where('merchant_id', '=', merchantId)
    .where('ended_at', 'is', null)
    .where(limitText, 'is not', null)
    .orderBy('id')
    .execute();
  if (campaigns.length === 0) return [];
  const held = await consumerHoldings(
    db,
    merchantId,
    { profileId },
    [],
    campaigns.map((c) => c.id),
    nowMs,
  );
  return campaigns.map((c) => ({
    campaignId: c.id,
    name: c.name,
    limit: Number(c.usage_limit),
    used: held.usages.get(c.id) ?? 0,
    paused: c.paused_at !== null,
  }));
}
