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

export interface SortimentGroupsTable {
  merchant_id: number;
  sortiment_id: number;
  id: string;
  /** Localised names, [{lang, val}]. */
  name: Json<{ lang: string; val: string }[]>;
  up_group_id: string | null;
}

export interface SortimentArticlesTable {
  merchant_id: number;
  sortiment_id: number;
  plu: string;
  group_id: string | null;
  /** The canonical article (src/sortiment/article.ts, StoredArticle); prices in minor units. */
  body: Json<unknown>;
  /** sha256 of the canonical article text: unchanged articles are not rewritten. */
  content_hash: string;
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
  sortiment_groups: SortimentGroupsTable;
  sortiment_articles: SortimentArticlesTable;
}
