import type { Migration } from './migration.js';

/**
 * Budgets of a campaign (docs/decisions.md, "Budgets"): a total discount budget and a total number of
 * redemptions, and a discount budget per day, week or month in the merchant's time zone. None set:
 * the campaign is not limited (today's behaviour). The limits are the campaign's current ones, not
 * its version's: a merchant who raises a budget lets the next grant use it.
 *
 * `campaign_budget_usage` holds what the grants booked, per campaign and period ('total', or the
 * first day of the day, ISO week or month); the grant locks the campaign's rows
 * (`lock_campaign_budgets`) and adds to them with a conditional UPDATE (`book_campaign_budgets`)
 * in its own transaction. `campaign_budget_bookings` says what each basket booked where, so that a
 * return gives it back to the period it was booked in.
 */
export const campaignBudgets: Migration = {
  name: '0039-campaign-budgets',
  statements: [
    `ALTER TABLE campaigns
       ADD COLUMN budget_total_minor bigint CHECK (budget_total_minor >= 0),
       ADD COLUMN budget_redemptions integer CHECK (budget_redemptions >= 0),
       ADD COLUMN budget_period text CHECK (budget_period IN ('day', 'week', 'month')),
       ADD COLUMN budget_period_minor bigint CHECK (budget_period_minor >= 0),
       ADD CONSTRAINT campaigns_budget_period
         CHECK ((budget_period IS NULL) = (budget_period_minor IS NULL))`,
    `CREATE TABLE campaign_budget_usage (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       campaign_id bigint NOT NULL REFERENCES campaigns(id),
       period text NOT NULL,
       discount_minor bigint NOT NULL DEFAULT 0 CHECK (discount_minor >= 0),
       redemptions integer NOT NULL DEFAULT 0 CHECK (redemptions >= 0),
       PRIMARY KEY (merchant_id, campaign_id, period))`,
    `CREATE TABLE campaign_budget_bookings (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       tracking_unit_id text NOT NULL,
       basket_id text NOT NULL,
       campaign_id bigint NOT NULL REFERENCES campaigns(id),
       period text,
       discount_minor bigint NOT NULL CHECK (discount_minor >= 0),
       redemptions integer NOT NULL CHECK (redemptions >= 0),
       booked_at timestamptz NOT NULL,
       given_back_at timestamptz,
       PRIMARY KEY (merchant_id, tracking_unit_id, basket_id, campaign_id))`,
    `CREATE INDEX campaign_budget_bookings_campaign
       ON campaign_budget_bookings (merchant_id, campaign_id, booked_at)`,
  ],
};
