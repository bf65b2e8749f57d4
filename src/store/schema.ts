import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type {
  BalanceTransactionsTable,
  CheckoutClientsTable,
  CheckoutIdempotencyKeysTable,
  CheckoutOrdersTable,
  CheckoutReservationsTable,
  WebhooksTable,
} from './tables/checkout.js';
import type * as N from './tables/notifications.js';
import type { OutboxAttemptsTable, OutboxMessagesTable, ReceiptsTable } from './tables/outbox.js';
import type {
  CardUnlocksTable,
  PortalCorrectionsTable,
  PortalSessionsTable,
  PortalUsersTable,
} from './tables/portal.js';

/**
 * Row types of every table. Operator tables (settings, dev_keys, merchants) are global; every
 * other table carries `merchant_id` as its tenant key.
 */
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;

/**
 * Shapes of the JSON columns, keyed "table.column". Each is declared by the module that owns the
 * column, by declaration merging (`declare module '../store/schema.js'`), so that rows come back
 * typed while the schema imports no domain module. A column nobody declared reads as `object`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface JsonShapes {}
type Shape<K extends string> = K extends keyof JsonShapes ? JsonShapes[K] : object;
/** A JSON column: read as its shape, written as JSON text. */
type Json<K extends string> = JSONColumnType<Shape<K>, string, string>;

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
  /** The generation of article rows readers see (src/sortiment/generations.ts). */
  current_gen: Generated<number>;
  /** Token of the writer holding the sortiment's turn (a bulk upload), with its lease. */
  pending_owner: ColumnType<string | null, string | null | undefined, string | null>;
  pending_until: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
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
  body: Json<'baskets.body'>;
  bill_pdf: Buffer | null;
  /** The basket response of the latest upload, with what the grant needs to book it. */
  result: Json<'baskets.result'>;
  revision: Generated<number>;
  uploaded_at: Timestamp;
  granted_at: Timestamp | null;
  redeemed_in_pos: boolean | null;
  grant_result: Json<'baskets.grant_result'> | null;
  /** The consumer profile the upload identified (card or one-time password), if any. */
  profile_id: ColumnType<number | null, number | null | undefined, number | null>;
}

export type AccountKind = 'liability' | 'card' | 'profile';
export type TransferKind = 'top_up' | 'withdrawal' | 'merge' | 'charge' | 'refund';
export type CardState = 'registered' | 'locked' | 'released';

export interface LedgerAccountsTable {
  merchant_id: number;
  id: Generated<number>;
  kind: AccountKind;
  currency: string;
  /** Credits minus debits, kept in the statement that writes each transfer; 0 for liability. */
  balance_minor: Generated<number>;
  status: Generated<'open' | 'closed'>;
  created_at: CreatedAt;
}

export interface LedgerTransfersTable {
  merchant_id: number;
  id: Generated<number>;
  /** Client-supplied idempotency key (POS transactionId), or one we made; unique per merchant. */
  transaction_id: string;
  kind: TransferKind;
  debit_account_id: number;
  credit_account_id: number;
  amount_minor: number;
  currency: string;
  card_id: number | null;
  token_id: string | null;
  /** Balance of the customer account the operation addressed, right after it. */
  balance_after_minor: number;
  tracking_unit_id: string | null;
  created_at: Timestamp;
  /** What authorised the booking: md5 or v2 SecurityToken, the operator, or unrecorded (older). */
  authorised_by: ColumnType<TransferAuthorisation, TransferAuthorisation | undefined, never>;
  /** SHA-256 (hex) of the SecurityToken or signature that authorised it. */
  authorisation_sha256: ColumnType<string | null, string | null | undefined, never>;
}

export type TransferAuthorisation = 'unrecorded' | 'md5' | 'v2' | 'operator' | 'checkout';

export interface SecurityTokenSignaturesTable {
  tracking_unit_id: string;
  signature: string;
  expires_at: Timestamp;
}

export interface IdentificationFailuresTable {
  merchant_id: number;
  /** `unit:<trackingUnitId>` or `merchant`. */
  subject: string;
  window_start: Timestamp;
  failures: number;
}

export interface ProfilesTable {
  merchant_id: number;
  id: Generated<number>;
  full_name: string | null;
  email: string | null;
  language: string | null;
  partner_user_id: string | null;
  account_id: number;
  is_top_up_allowed: boolean;
  is_charge_allowed: boolean;
  max_amount_minor: number | null;
  max_single_top_up_minor: number | null;
  min_single_top_up_minor: number | null;
  max_monthly_top_up_minor: number | null;
  created_at: CreatedAt;
}

export interface TagsTable {
  merchant_id: number;
  id: Generated<number>;
  name: string;
}

export interface ProfileTagsTable {
  merchant_id: number;
  profile_id: number;
  tag_id: number;
}

export interface ProfileOtpsTable {
  merchant_id: number;
  otp_sha256: string;
  profile_id: number;
  expires_at: Timestamp;
  spent_at: Timestamp | null;
  created_at: Timestamp;
}

export interface CardsTable {
  merchant_id: number;
  id: Generated<number>;
  token_id: string;
  token_type: number;
  state: CardState;
  expires_at: Timestamp | null;
  profile_id: number | null;
  /** The card's own account (gift cards, unlinked customer cards). */
  account_id: number;
  registered_at: Timestamp;
  updated_at: Timestamp;
}

export interface PointsLotsTable {
  merchant_id: number;
  id: Generated<number>;
  scheme_id: number;
  profile_id: number | null;
  card_id: number | null;
  points: number;
  remaining: number;
  earned_at: Timestamp;
  expires_at: Timestamp | null;
  tracking_unit_id: string | null;
  basket_id: string | null;
}

export interface PointsMovementsTable {
  merchant_id: number;
  id: Generated<number>;
  scheme_id: number;
  profile_id: number | null;
  card_id: number | null;
  /** `move` only in movements written before the history was verified (`pre_opening`). */
  kind: PointsMovementKind | 'move';
  points: number;
  lot_id: number | null;
  tracking_unit_id: string | null;
  basket_id: string | null;
  return_id: string | null;
  created_at: Timestamp;
  /** The lot's expiry, on the movement that creates the lot. */
  expires_at: Timestamp | null;
  /** The card whose linking to a profile moved the lot. */
  link_card_id: number | null;
  pre_opening: Generated<boolean>;
}

export type PointsMovementKind =
  'opening' | 'earn' | 'spend' | 'return_earned' | 'return_spent' | 'move_out' | 'move_in';

export interface CampaignUsageMovementsTable {
  merchant_id: number;
  id: Generated<number>;
  tracking_unit_id: string;
  basket_id: string;
  campaign_id: number;
  profile_id: number | null;
  card_id: number | null;
  kind: 'opening' | 'use' | 'release' | 'move_out' | 'move_in';
  count: number;
  return_id: string | null;
  link_card_id: number | null;
  created_at: Timestamp;
}

export interface CampaignUsagesTable {
  merchant_id: number;
  tracking_unit_id: string;
  basket_id: string;
  campaign_id: number;
  profile_id: number | null;
  card_id: number | null;
  used: number;
  released: Generated<number>;
  created_at: Timestamp;
}

export interface BasketReturnsTable {
  merchant_id: number;
  tracking_unit_id: string;
  basket_id: string;
  return_id: string;
  body: Json<'basket_returns.body'>;
  response: Json<'basket_returns.response'>;
  created_at: Timestamp;
}

export interface SortimentGroupsTable {
  merchant_id: number;
  sortiment_id: number;
  id: string;
  /** Localised names, [{lang, val}]. */
  name: JSONColumnType<{ lang: string; val: string }[], string, string>;
  up_group_id: string | null;
}

export interface SortimentArticlesTable {
  merchant_id: number;
  sortiment_id: number;
  plu: string;
  group_id: string | null;
  /** The canonical article (src/sortiment/article.ts, StoredArticle); prices in minor units. */
  body: Json<'sortiment_articles.body'>;
  /** sha256 of the canonical article text: unchanged articles are not rewritten. */
  content_hash: string;
  /** Live in the sortiment generations from_gen <= g < to_gen (to_gen null: open ended). */
  from_gen: number;
  to_gen: ColumnType<number | null, number | null | undefined, number | null>;
}

/** Head row of a campaign or loyalty scheme: its current version. */
interface RuleHeadColumns {
  merchant_id: number;
  id: Generated<number>;
  version: number;
  name: string;
  /** The body as the operator sent it (normalised field names, major units). */
  definition: Json<'rules.definition'>;
  /** The rule converted for the engine, without id and version (minor units, basis points). */
  engine: Json<'rules.engine'>;
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
  definition: Json<'rules.definition'>;
  engine: Json<'rules.engine'>;
  created_at: Timestamp;
}

export interface CampaignVersionsTable extends RuleVersionColumns {
  campaign_id: number;
}

export interface LoyaltySchemeVersionsTable extends RuleVersionColumns {
  scheme_id: number;
}

export interface DB {
  outbox_messages: OutboxMessagesTable;
  outbox_attempts: OutboxAttemptsTable;
  receipts: ReceiptsTable;
  settings: SettingsTable;
  dev_keys: DevKeysTable;
  merchants: MerchantsTable;
  brands: BrandsTable;
  outlets: OutletsTable;
  brand_outlets: BrandOutletsTable;
  sortiments: SortimentsTable;
  tracking_units: TrackingUnitsTable;
  baskets: BasketsTable;
  ledger_accounts: LedgerAccountsTable;
  ledger_transfers: LedgerTransfersTable;
  profiles: ProfilesTable;
  tags: TagsTable;
  profile_tags: ProfileTagsTable;
  profile_otps: ProfileOtpsTable;
  cards: CardsTable;
  points_lots: PointsLotsTable;
  points_movements: PointsMovementsTable;
  campaign_usages: CampaignUsagesTable;
  campaign_usage_movements: CampaignUsageMovementsTable;
  basket_returns: BasketReturnsTable;
  consumer_preferences: N.ConsumerPreferencesTable;
  push_subscriptions: N.PushSubscriptionsTable;
  consumer_sign_ins: N.ConsumerSignInsTable;
  consumer_sessions: N.ConsumerSessionsTable;
  sortiment_groups: SortimentGroupsTable;
  sortiment_articles: SortimentArticlesTable;
  campaigns: CampaignsTable;
  campaign_versions: CampaignVersionsTable;
  loyalty_schemes: LoyaltySchemesTable;
  loyalty_scheme_versions: LoyaltySchemeVersionsTable;
  security_token_signatures: SecurityTokenSignaturesTable;
  identification_failures: IdentificationFailuresTable;
  checkout_clients: CheckoutClientsTable;
  checkout_orders: CheckoutOrdersTable;
  checkout_reservations: CheckoutReservationsTable;
  balance_transactions: BalanceTransactionsTable;
  checkout_idempotency_keys: CheckoutIdempotencyKeysTable;
  webhooks: WebhooksTable;
  portal_users: PortalUsersTable;
  portal_sessions: PortalSessionsTable;
  portal_corrections: PortalCorrectionsTable;
  card_unlocks: CardUnlocksTable;
}
