import type { ColumnType, Generated } from 'kysely';
import type { CreatedAt, Timestamp } from './columns.js';

/** Row types of the operator tables (settings, dev_keys, merchants: global) and of brands, outlets and terminals. */

export interface SettingsTable {
  key: string;
  value: string;
}

export interface DevKeysTable {
  id: Generated<number>;
  /** SHA-256 (hex) of the key; the key itself is shown once, at creation. */
  key_sha256: string;
  name: string;
  created_at: CreatedAt;
  revoked_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface MerchantsTable {
  id: Generated<number>;
  service_user_name: string;
  display_name: string;
  currency: string;
  time_zone: string;
  /** Raised whenever a campaign or loyalty scheme changes: keys the rule caches. */
  rules_version: Generated<number>;
  created_at: CreatedAt;
  /** addBalance and withdrawBalance need a transactionId, which the SecurityToken then covers. */
  require_transaction_id: Generated<boolean>;
  /** What the receipt says of the merchant (docs/decisions.md, "Receipts a shop can hand out"). */
  legal_name: ColumnType<string | null, string | null | undefined, string | null>;
  legal_address: ColumnType<string | null, string | null | undefined, string | null>;
  /** The VAT identification number, e.g. DE123456789. */
  tax_number: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface BrandsTable {
  merchant_id: number;
  id: Generated<number>;
  name: string;
  created_at: CreatedAt;
}

export interface OutletsTable {
  merchant_id: number;
  id: Generated<number>;
  name: string | null;
  description: string | null;
  street: string | null;
  city: string | null;
  postal_index: string | null;
  country_iso: string | null;
  public_telefon: string | null;
  public_email: string | null;
  website_url: string | null;
  facebook_url: string | null;
  twitter_url: string | null;
  created_at: CreatedAt;
}

export interface BrandOutletsTable {
  merchant_id: number;
  brand_id: number;
  outlet_id: number;
}

export interface TrackingUnitsTable {
  merchant_id: number;
  id: string;
  dev_key_id: number;
  outlet_id: number;
  sortiment_id: number | null;
  instance_name: string;
  checksum_secret: string;
  activated: boolean;
  activated_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
  /** Set when the operator deactivated the terminal; cleared by activating it again. */
  deactivated_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  require_security_token_v2: Generated<boolean>;
  checksum_secret_rotated_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface SecurityTokenSignaturesTable {
  tracking_unit_id: string;
  signature: string;
  expires_at: Timestamp;
}

/** Failures per client address and scope in a window that began at the first (migration 0053). */
export interface AddressFailuresTable {
  /** Which throttle: `operator`, `portal-sign-in`, `consumer-sign-in-links`. */
  scope: string;
  /** The client address as `clientKey` gives it (an IPv6 address by its /64). */
  address: string;
  window_end: Timestamp;
  failures: number;
}

export interface IdentificationFailuresTable {
  merchant_id: number;
  /** `unit:<trackingUnitId>` or `merchant`. */
  subject: string;
  window_start: Timestamp;
  failures: number;
}
