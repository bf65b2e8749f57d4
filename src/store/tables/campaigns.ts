import type { Generated } from 'kysely';
import type { CreatedAt, Json, Timestamp } from './columns.js';

/** Row types of campaigns and loyalty schemes with their versions. */

/** Head row of a campaign or loyalty scheme: its current version. */
interface RuleHeadColumns {
  merchant_id: number;
  id: Generated<number>;
  version: number;
  name: string;
  /** The body as the operator sent it (normalised field names, major units). */
  definition: Json<'rules.definition'>;
  /** The rule converted for the engine, without id and version (minor units, basis points). */
  engine: Json<'rules.engine'>;
  valid_from: Timestamp | null;
  valid_to: Timestamp | null;
  ended_at: Timestamp | null;
  /** Set while the merchant has paused the rule: it gives nothing until resumed. */
  paused_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface CampaignsTable extends RuleHeadColumns {
  type: string;
  /** Budgets (migration 0039): null, not limited. */
  budget_total_minor: Generated<number | null>;
  budget_redemptions: Generated<number | null>;
  budget_period: Generated<'day' | 'week' | 'month' | null>;
  budget_period_minor: Generated<number | null>;
}

export type LoyaltySchemesTable = RuleHeadColumns;

/** Immutable copy of one version of a rule. */
interface RuleVersionColumns {
  merchant_id: number;
  version: number;
  definition: Json<'rules.definition'>;
  engine: Json<'rules.engine'>;
  created_at: Timestamp;
}

export interface CampaignVersionsTable extends RuleVersionColumns {
  campaign_id: number;
}

export interface LoyaltySchemeVersionsTable extends RuleVersionColumns {
  scheme_id: number;
}

/** A batch of generated unique codes of a campaign (migration 0038). */
export interface CampaignCodeBatchesTable {
  merchant_id: number;
  id: Generated<number>;
  campaign_id: number;
  prefix: string;
  code_length: number;
  count: number;
  created_at: Timestamp;
}

/** One unique code: normalised (upper case), unique per merchant, redeemed at most once at a time. */
export interface CampaignCodesTable {
  merchant_id: number;
  code: string;
  campaign_id: number;
  batch_id: number;
  redeemed_at: Timestamp | null;
  tracking_unit_id: string | null;
  basket_id: string | null;
  outlet_id: number | null;
  given_back_at: Timestamp | null;
}

/** What the grants booked of a campaign's budget, per period ('total' or the period's first day). */
export interface CampaignBudgetUsageTable {
  merchant_id: number;
  campaign_id: number;
  period: string;
  discount_minor: Generated<number>;
  redemptions: Generated<number>;
}

/** What one basket booked of a campaign's budget, given back by a return (migration 0039). */
export interface CampaignBudgetBookingsTable {
  merchant_id: number;
  tracking_unit_id: string;
  basket_id: string;
  campaign_id: number;
  period: string | null;
  discount_minor: number;
  redemptions: number;
  booked_at: Timestamp;
  given_back_at: Timestamp | null;
}

/** What an online order booked of a campaign's budgets (migration 0070-order-budget-bookings). */
export interface OrderBudgetBookingsTable {
  merchant_id: number;
  order_id: string;
  campaign_id: number;
  period: string | null;
  discount_minor: number;
  redemptions: number;
  booked_at: Timestamp;
  given_back_at: Timestamp | null;
}

/** The uses an online order was given of campaigns with a usage limit per customer (migration 0071-order-campaign-usages). */
export interface OrderCampaignUsagesTable {
  merchant_id: number;
  order_id: string;
  campaign_id: number;
  profile_id: number;
  used: number;
  released: Generated<number>;
  created_at: Timestamp;
  released_at: Timestamp | null;
}
