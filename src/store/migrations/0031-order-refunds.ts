import type { Migration } from './migration.js';

/**
 * Refunds of checkout orders, whole or in part (docs/decisions.md, "Reading back, lists and
 * partial refunds"): each refund is a row, numbered within its order, with its amount and, when it took positions back, which
 * and how many; the order keeps the sum given back (`refunded_minor`), which its row lock keeps
 * from ever passing what was charged. Orders refunded before are given their one refund, of the
 * whole charge, at the time they were refunded. Balance transactions and webhook deliveries get
 * the indexes their lists page by.
 */
export const orderRefunds: Migration = {
  name: '0031-order-refunds',
  statements: [
    `ALTER TABLE checkout_orders ADD COLUMN refunded_minor bigint NOT NULL DEFAULT 0
       CHECK (refunded_minor >= 0 AND refunded_minor <= charged_minor)`,
    `CREATE TABLE checkout_refunds (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id text PRIMARY KEY,
       order_id text NOT NULL REFERENCES checkout_orders(id),
       seq integer NOT NULL,
       amount_minor bigint NOT NULL CHECK (amount_minor >= 0),
       positions jsonb NOT NULL DEFAULT '[]',
       transaction_id text,
       created_at timestamptz NOT NULL,
       UNIQUE (order_id, seq))`,
    `INSERT INTO checkout_refunds (merchant_id, id, order_id, seq, amount_minor, transaction_id, created_at)
       SELECT o.merchant_id, 'ref_' || md5(o.id), o.id, 1, o.charged_minor,
              (SELECT t.id FROM balance_transactions t WHERE t.order_id = o.id AND t.kind = 'refund' LIMIT 1),
              coalesce(o.refunded_at, o.created_at)
         FROM checkout_orders o WHERE o.status = 'refunded'`,
    `UPDATE checkout_orders SET refunded_minor = charged_minor WHERE status = 'refunded'`,
    `CREATE INDEX checkout_orders_merchant_time ON checkout_orders (merchant_id, created_at, id)`,
    `CREATE INDEX balance_transactions_profile_page ON balance_transactions (profile_id, created_at, id)`,
  ],
};
