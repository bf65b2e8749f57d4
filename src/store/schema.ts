import type { ColumnType, Generated } from 'kysely';

/**
 * Row types of every table. Operator tables (settings, dev_keys, merchants) are global; every
 * other table carries `merchant_id` as its tenant key.
 */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Json<T> = ColumnType<T, string, string>;

export interface SettingsTable {
  key: string;
  value: string;
}

export interface DevKeysTable {
  id: Generated<number>;
  dev_key: string;
  name: string;
  created_at: CreatedAt;
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

export interface SortimentsTable {
  merchant_id: number;
  id: Generated<number>;
  third_party_identifier: string;
  name: string | null;
  /** Raised by every change of the sortiment's groups or articles: the menu ETag. */
  version: Generated<number>;
  created_at: CreatedAt;
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
}

export interface BasketsTable {
  merchant_id: number;
  tracking_unit_id: string;
  basket_id: string;
  outlet_id: number;
  timestamp_utc: Timestamp;
  timestamp_offset_minutes: number;
  currency: string;
  total_value_minor: number | null;
  consumer_token: string | null;
  gift_card_id: string | null;
  /** The basket as the POS sent it, normalised (field names as in the documents). */
  body: Json<unknown>;
  bill_pdf: Buffer | null;
  /** The basket response of the latest upload, with what the grant needs to book it. */
  result: Json<unknown>;
  revision: Generated<number>;
  uploaded_at: Timestamp;
  granted_at: Timestamp | null;
  redeemed_in_pos: boolean | null;
  grant_result: Json<unknown> | null;
}

/** Head row of a campaign or loyalty scheme: its current version. */
interface RuleHeadColumns {
  merchant_id: number;
  id: Generated<number>;
  version: number;
  name: string;
  /** The body as the operator sent it (normalised field names, major units). */
  definition: Json<unknown>;
  /** The rule converted for the engine, without id and version (minor units, basis points). */
  engine: Json<unknown>;
  valid_from: Timestamp | null;
  valid_to: Timestamp | null;
  ended_at: Timestamp | null;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface CampaignsTable extends RuleHeadColumns {
  type: string;
}

export type LoyaltySchemesTable = RuleHeadColumns;

/** Immutable copy of one version of a rule. */
interface RuleVersionColumns {
  merchant_id: number;
  version: number;
  definition: Json<unknown>;
  engine: Json<unknown>;
  created_at: Timestamp;
}

export interface CampaignVersionsTable extends RuleVersionColumns {
  campaign_id: number;
}

export interface LoyaltySchemeVersionsTable extends RuleVersionColumns {
  scheme_id: number;
}

export interface DB {
  settings: SettingsTable;
  dev_keys: DevKeysTable;
  merchants: MerchantsTable;
  brands: BrandsTable;
  outlets: OutletsTable;
  brand_outlets: BrandOutletsTable;
  sortiments: SortimentsTable;
  tracking_units: TrackingUnitsTable;
  baskets: BasketsTable;
  campaigns: CampaignsTable;
  campaign_versions: CampaignVersionsTable;
  loyalty_schemes: LoyaltySchemesTable;
  loyalty_scheme_versions: LoyaltySchemeVersionsTable;
}
