import type { Migration } from './migration.js';

/**
 * Refunds of checkout orders made by the merchant in the portal (docs/decisions.md, "Refunding an
 * order from the portal"): who made it, the reason given, and the request's own id with what it
 * asked for, so that a request sent twice (a retried submit, a second tab) answers the first
 * refund instead of giving the money back twice. The request id is unique in the merchant.
 */
export const portalRefunds: Migration = {
  name: '0063-portal-refunds',
  statements: [
    `ALTER TABLE checkout_refunds ADD COLUMN portal_user_id bigint REFERENCES portal_users(id)`,
    `ALTER TABLE checkout_refunds ADD COLUMN reason text`,
    `ALTER TABLE checkout_refunds ADD COLUMN request_id text`,
    `ALTER TABLE checkout_refunds ADD COLUMN asked_minor bigint`,
    `CREATE UNIQUE INDEX checkout_refunds_request ON checkout_refunds (merchant_id, request_id)
       WHERE request_id IS NOT NULL`,
  ],
};
