import type { Migration } from './migration.js';

/**
 * What an enrolment request asked, kept with the customer it made (docs/decisions.md, "Enrolling a
 * customer in the portal", "Sent twice, one customer"): a repeat of the request is compared with the
 * request, not with the customer as later changes left them (a name corrected, a card released), so
 * the form sent again after such a change still answers its customer. A SHA-256 of the request's
 * fields; null for profiles made before it, whose repeats are compared with the profile as it is.
 */
export const portalRequestFingerprint: Migration = {
  name: '0065-portal-request-fingerprint',
  statements: [`ALTER TABLE profiles ADD COLUMN portal_request_fingerprint text`],
};
