import type { Migration } from './migration.js';

/**
 * Customers enrolled in the portal (docs/decisions.md, "Enrolling a customer in the portal"): the
 * portal user who created the profile, and the request's own id, so that the form sent twice (a
 * double click, a retried submit, a second tab) answers the first customer instead of creating a
 * second. The request id is unique in the merchant. A card's balance moved to the customer when a
 * portal user links the card is authorised by the portal, not the operator: the balance history
 * names the channel that booked each movement. The constraint is added unchecked and then
 * checked, so the ledger's rows are read without holding off its writers.
 */
export const portalEnrolment: Migration = {
  name: '0064-portal-enrolment',
  statements: [
    `ALTER TABLE profiles ADD COLUMN created_by_portal_user_id bigint REFERENCES portal_users(id)`,
    `ALTER TABLE profiles ADD COLUMN portal_request_id text`,
    `CREATE UNIQUE INDEX profiles_portal_request ON profiles (merchant_id, portal_request_id)
       WHERE portal_request_id IS NOT NULL`,
    `ALTER TABLE ledger_transfers DROP CONSTRAINT ledger_transfers_authorised_by_check`,
    `ALTER TABLE ledger_transfers ADD CONSTRAINT ledger_transfers_authorised_by_check
       CHECK (authorised_by IN ('unrecorded', 'md5', 'v2', 'operator', 'checkout', 'portal')) NOT VALID`,
    `ALTER TABLE ledger_transfers VALIDATE CONSTRAINT ledger_transfers_authorised_by_check`,
  ],
};
