import type {
  BalanceTransactionsTable,
  CheckoutClientsTable,
  CheckoutIdempotencyKeysTable,
  CheckoutOrdersTable,
  CheckoutRefundsTable,
  CheckoutReservationsTable,
  WebhooksTable,
} from './tables/checkout.js';
import type * as N from './tables/notifications.js';
import type {
  BrandOutletsTable,
  BrandsTable,
  DevKeysTable,
  AddressFailuresTable,
  IdentificationFailuresTable,
  MerchantsTable,
  OutletsTable,
  SecurityTokenSignaturesTable,
  SettingsTable,
  TrackingUnitsTable,
} from './tables/merchants.js';
import type { BasketReturnsTable, BasketsTable } from './tables/baskets.js';
import type { LedgerAccountsTable, LedgerTransfersTable } from './tables/ledger.js';
import type {
  CardsTable,
  ProfileOtpsTable,
  ProfileTagsTable,
  ProfilesTable,
  TagsTable,
} from './tables/cards.js';
import type {
  CampaignUsageMovementsTable,
  CampaignUsagesTable,
  PointsLotsTable,
  PointsMovementsTable,
} from './tables/loyalty.js';
import type { SortimentArticlesTable, SortimentGroupsTable, SortimentsTable } from './tables/sortiment.js';
import type {
  CampaignBudgetBookingsTable,
  CampaignBudgetUsageTable,
  CampaignCodeBatchesTable,
  CampaignCodesTable,
  CampaignVersionsTable,
  CampaignsTable,
  LoyaltySchemeVersionsTable,
  OrderBudgetBookingsTable,
  OrderCampaignUsagesTable,
  LoyaltySchemesTable,
} from './tables/campaigns.js';
import type { OutboxAttemptsTable, OutboxMessagesTable, ReceiptsTable } from './tables/outbox.js';
import type {
  CardLockEventsTable,
  CardOtpIssuesTable,
  PortalCorrectionsTable,
  PortalSessionsTable,
  PortalPasswordResetsTable,
  PortalUsersTable,
  ProfileEmailChangesTable,
} from './tables/portal.js';

/**
 * Shapes of the JSON columns, keyed "table.column". Each is declared by the module that owns the
 * column, by declaration merging (`declare module '../store/schema.js'`), so that rows come back
 * typed while the schema imports no domain module. A column nobody declared reads as `object`.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface JsonShapes {}

// Column types other modules name.
export type { AccountKind, TransferAuthorisation, TransferKind } from './tables/ledger.js';
export type { CardState } from './tables/cards.js';
export type { PointsMovementKind } from './tables/loyalty.js';

/**
 * The database as Kysely sees it: every table and its row type (in tables/*.ts, a file per
 * module). Operator tables (settings, dev_keys, merchants) are global; every other table carries
 * `merchant_id` as its tenant key.
 */
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
  campaign_budget_usage: CampaignBudgetUsageTable;
  campaign_budget_bookings: CampaignBudgetBookingsTable;
  order_budget_bookings: OrderBudgetBookingsTable;
  order_campaign_usages: OrderCampaignUsagesTable;
  campaign_code_batches: CampaignCodeBatchesTable;
  campaign_codes: CampaignCodesTable;
  loyalty_schemes: LoyaltySchemesTable;
  loyalty_scheme_versions: LoyaltySchemeVersionsTable;
  security_token_signatures: SecurityTokenSignaturesTable;
  identification_failures: IdentificationFailuresTable;
  address_failures: AddressFailuresTable;
  checkout_clients: CheckoutClientsTable;
  checkout_orders: CheckoutOrdersTable;
  checkout_refunds: CheckoutRefundsTable;
  checkout_reservations: CheckoutReservationsTable;
  balance_transactions: BalanceTransactionsTable;
  checkout_idempotency_keys: CheckoutIdempotencyKeysTable;
  webhooks: WebhooksTable;
  portal_users: PortalUsersTable;
  portal_sessions: PortalSessionsTable;
  portal_password_resets: PortalPasswordResetsTable;
  portal_corrections: PortalCorrectionsTable;
  card_lock_events: CardLockEventsTable;
  profile_email_changes: ProfileEmailChangesTable;
  card_otp_issues: CardOtpIssuesTable;
}
