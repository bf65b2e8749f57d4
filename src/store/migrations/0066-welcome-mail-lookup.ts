import type { Migration } from './migration.js';

/**
 * The customer's page shows what became of their welcome mail and sends it again
 * (docs/decisions.md, "The welcome mail sent again"): the latest welcome mail of a profile is found
 * by the merchant and the profile's id, not by reading every welcome mail of the merchant.
 */
export const welcomeMailLookup: Migration = {
  name: '0066-welcome-mail-lookup',
  statements: [
    `CREATE INDEX outbox_messages_welcome ON outbox_messages (merchant_id, (payload->>'profileId'))
       WHERE topic = 'profile.welcome_mail'`,
  ],
};
