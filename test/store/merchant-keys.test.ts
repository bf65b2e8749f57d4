import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database } from '../../src/store/db.js';
import { databases, openTestDatabase } from '../support/harness.js';

/**
 * Distribution by merchant (docs/scaling.md, "Beyond one PostgreSQL"): a table that holds a
 * merchant's data is distributed by its `merchant_id`, which Citus wants in the primary key and in
 * every unique constraint. Each table is in exactly one of these lists, with its reason; a new table
 * fails this test until it is placed.
 */
const KEYED_BY_MERCHANT = [
  'campaign_budget_bookings',
  'campaign_budget_usage',
  'campaign_code_batches',
  'campaign_codes',
  'dashboard_articles',
  'dashboard_campaigns',
  'dashboard_changes',
  'dashboard_hours',
  'identification_failures',
  'order_budget_bookings',
  'order_campaign_usages',
  'profile_otps',
];

/** Shared by every merchant, or about the service itself: reference tables (copied to every node). */
const REFERENCE = {
  merchants: 'the merchants themselves: the distribution key is their id',
  dev_keys: "POS vendors' keys, shared by the merchants whose tills a vendor runs",
  settings: "the service's own settings (Web Push keys)",
  kysely_migration: 'the migrations applied',
  kysely_migration_lock: 'the migrations lock',
  stored_functions: 'the stored functions applied, with the hash of their files',
  address_failures: "failures per client address: the service's guard of its sign-ins, no merchant's data",
};

/**
 * Rows that belong to a merchant through their parent, with no merchant_id of their own: they are
 * co-located by the parent's key, which their distribution will add (docs/scaling.md lists them).
 */
const THROUGH_PARENT = {
  checkout_idempotency_keys: 'a checkout client’s keys (client_id); the client is a merchant’s',
  outbox_attempts: 'attempts of an outbox message (message_id); the message carries merchant_id',
  portal_password_resets: 'links to set a password again (user_id); the portal user is a merchant’s',
  security_token_signatures:
    'spent signatures of a terminal (tracking_unit_id); the terminal is a merchant’s',
};

/**
 * Tables with merchant_id whose primary key is a global id (a sequence, a UUID, a public token) or a
 * terminal's key: unique across merchants by construction today. Distribution turns each key into
 * (merchant_id, ...) together with the unique constraints and ON CONFLICT targets that name it:
 * the step docs/scaling.md describes, not taken yet.
 */
const GLOBAL_KEY_TO_WIDEN = [
  'balance_transactions',
  'basket_returns',
  'baskets',
  'brand_outlets',
  'brands',
  'campaign_usage_movements',
  'campaign_usages',
  'campaign_versions',
  'campaigns',
  'card_lock_events',
  'card_otp_issues',
  'cards',
  'checkout_clients',
  'checkout_orders',
  'checkout_refunds',
  'checkout_reservations',
  'consumer_preferences',
  'consumer_sessions',
  'consumer_sign_ins',
  'ledger_accounts',
  'ledger_transfers',
  'loyalty_scheme_versions',
  'loyalty_schemes',
  'outbox_messages',
  'outlets',
  'points_lots',
  'points_movements',
  'portal_corrections',
  'portal_sessions',
  'portal_users',
  'profile_email_changes',
  'profile_tags',
  'profiles',
  'push_subscriptions',
  'receipts',
  'sortiment_articles',
  'sortiment_groups',
  'sortiments',
  'tags',
  'tracking_units',
  'webhooks',
];

interface TableKeys {
  name: string;
  primaryKey: string[];
  hasMerchantId: boolean;
}

describe.each(databases)("every table's place in a distribution by merchant (%s)", (kind) => {
  let database: Database;
  let drop: () => Promise<void>;
  let tables: TableKeys[];

  beforeAll(async () => {
    ({ database, drop } = await openTestDatabase(kind));
    const rows = await sql<{ name: string; pk: string | null; has_merchant: boolean }>`
      SELECT c.relname AS name,
             (SELECT string_agg(a.attname, ',' ORDER BY array_position(i.indkey::int2[], a.attnum))
                FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
               WHERE i.indrelid = c.oid AND i.indisprimary) AS pk,
             EXISTS (SELECT 1 FROM pg_attribute a
                      WHERE a.attrelid = c.oid AND a.attname = 'merchant_id' AND NOT a.attisdropped) AS has_merchant
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p')
       ORDER BY 1`.execute(database.db);
    tables = rows.rows.map((r) => ({
      name: r.name,
      primaryKey: r.pk ? r.pk.split(',') : [],
      hasMerchantId: r.has_merchant,
    }));
  });
  afterAll(async () => {
    await drop?.();
  });

  it('each table is placed once: keyed by merchant, reference, through its parent, or a key to widen', () => {
    const placed = [
      ...KEYED_BY_MERCHANT,
      ...Object.keys(REFERENCE),
      ...Object.keys(THROUGH_PARENT),
      ...GLOBAL_KEY_TO_WIDEN,
    ];
    expect(new Set(placed).size).toBe(placed.length);
    expect(tables.map((t) => t.name).sort()).toEqual([...placed].sort());
  });

  it('a table keyed by merchant has merchant_id first in its primary key', () => {
    for (const name of KEYED_BY_MERCHANT) {
      expect(tables.find((t) => t.name === name)?.primaryKey[0], name).toBe('merchant_id');
    }
  });

  it("every table with a merchant's rows has merchant_id, or reaches it through its parent", () => {
    for (const name of [...KEYED_BY_MERCHANT, ...GLOBAL_KEY_TO_WIDEN]) {
      expect(tables.find((t) => t.name === name)?.hasMerchantId, name).toBe(true);
    }
    for (const name of [...Object.keys(THROUGH_PARENT), ...Object.keys(REFERENCE)]) {
      if (name === 'merchants') continue;
      expect(tables.find((t) => t.name === name)?.hasMerchantId, name).toBe(false);
    }
  });

  it('a table whose key is to widen has a primary key without merchant_id (else it belongs above)', () => {
    for (const name of GLOBAL_KEY_TO_WIDEN) {
      const keys = tables.find((t) => t.name === name)?.primaryKey ?? [];
      expect(keys.length, name).toBeGreaterThan(0);
      expect(keys, name).not.toContain('merchant_id');
    }
  });
});
