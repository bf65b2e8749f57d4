import type { Migration } from './migration.js';

/**
 * An online order counts against the budgets of the campaigns it was given (docs/decisions.md, "A
 * campaign with a budget and online orders"): its booking adds to `campaign_budget_usage` as a
 * grant does, and this table says what each order booked where, so that refunding the order in
 * whole gives it back to the period it was booked in (as `campaign_budget_bookings` does for a
 * till's basket and its return).
 */
export const orderBudgetBookings: Migration = {
  name: '0070-order-budget-bookings',
  statements: [
    `CREATE TABLE order_budget_bookings (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       order_id text NOT NULL,
       campaign_id bigint NOT NULL REFERENCES campaigns(id),
       period text,
       discount_minor bigint NOT NULL CHECK (discount_minor >= 0),
       redemptions integer NOT NULL CHECK (redemptions >= 0),
       booked_at timestamptz NOT NULL,
       given_back_at timestamptz,
       PRIMARY KEY (merchant_id, order_id, campaign_id))`,
  ],
};
