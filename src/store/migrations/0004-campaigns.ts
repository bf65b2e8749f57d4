import type { Migration } from './migration.js';

/**
 * Campaigns and loyalty schemes with every version kept. The head row (`campaigns`,
 * `loyalty_schemes`) holds the current version; `*_versions` holds an immutable copy of every
 * version, so a granted basket that names (id, version) can always be recomputed or explained.
 * `definition` is the body as the operator sent it (normalised field names, major units);
 * `engine` is the same rule converted for the engine (minor units, basis points, epoch ms).
 */
export const campaigns: Migration = {
  name: '0004-campaigns',
  statements: [
    `CREATE TABLE campaigns (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial PRIMARY KEY,
       version integer NOT NULL,
       name text NOT NULL,
       type text NOT NULL,
       definition jsonb NOT NULL,
       engine jsonb NOT NULL,
       valid_from timestamptz,
       valid_to timestamptz,
       ended_at timestamptz,
       created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL)`,
    `CREATE INDEX campaigns_merchant ON campaigns (merchant_id, id)`,
    `CREATE TABLE campaign_versions (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       campaign_id bigint NOT NULL REFERENCES campaigns(id),
       version integer NOT NULL,
       definition jsonb NOT NULL,
       engine jsonb NOT NULL,
       created_at timestamptz NOT NULL,
       PRIMARY KEY (campaign_id, version))`,
    `CREATE TABLE loyalty_schemes (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       id bigserial PRIMARY KEY,
       version integer NOT NULL,
       name text NOT NULL,
       definition jsonb NOT NULL,
       engine jsonb NOT NULL,
       valid_from timestamptz,
       valid_to timestamptz,
       ended_at timestamptz,
       created_at timestamptz NOT NULL DEFAULT now(),
       updated_at timestamptz NOT NULL)`,
    `CREATE INDEX loyalty_schemes_merchant ON loyalty_schemes (merchant_id, id)`,
    `CREATE TABLE loyalty_scheme_versions (
       merchant_id bigint NOT NULL REFERENCES merchants(id),
       scheme_id bigint NOT NULL REFERENCES loyalty_schemes(id),
       version integer NOT NULL,
       definition jsonb NOT NULL,
       engine jsonb NOT NULL,
       created_at timestamptz NOT NULL,
       PRIMARY KEY (scheme_id, version))`,
  ],
};
