import type { Migration } from './migration.js';

/**
 * The consumer side of a purchase (docs/decisions.md, "Notifications, receipts and the consumer
 * portal"): the consumer's notification switches, the browsers subscribed to Web Push, and the
 * consumer portal's one-time sign-in links and sessions. Tokens and session ids are stored only
 * as SHA-256 hashes.
 */
export const notifications: Migration = {
  name: '0013-notifications',
  statements: [
    `CREATE TABLE consumer_preferences (
       merchant_id integer NOT NULL,
       profile_id bigint PRIMARY KEY REFERENCES profiles(id),
       mail_enabled boolean NOT NULL DEFAULT true,
       push_enabled boolean NOT NULL DEFAULT true,
       updated_at timestamptz NOT NULL
     )`,
    `CREATE TABLE push_subscriptions (
       id bigserial PRIMARY KEY,
       merchant_id integer NOT NULL,
       profile_id bigint NOT NULL REFERENCES profiles(id),
       endpoint text NOT NULL,
       p256dh text NOT NULL,
       auth text NOT NULL,
       created_at timestamptz NOT NULL,
       UNIQUE (profile_id, endpoint)
     )`,
    `CREATE TABLE consumer_sign_ins (
       token_sha256 text PRIMARY KEY,
       merchant_id integer NOT NULL,
       profile_id bigint NOT NULL REFERENCES profiles(id),
       expires_at timestamptz NOT NULL,
       spent_at timestamptz,
       created_at timestamptz NOT NULL
     )`,
    `CREATE TABLE consumer_sessions (
       id_sha256 text PRIMARY KEY,
       merchant_id integer NOT NULL,
       profile_id bigint NOT NULL REFERENCES profiles(id),
       csrf_token text NOT NULL,
       expires_at timestamptz NOT NULL,
       created_at timestamptz NOT NULL
     )`,
    `CREATE INDEX baskets_profile_granted ON baskets (profile_id, granted_at DESC)
       WHERE granted_at IS NOT NULL AND profile_id IS NOT NULL`,
  ],
};
