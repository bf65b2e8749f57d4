import { foundation } from './0001-foundation.js';
import { sortiment } from './0002-sortiment.js';
import { cards } from './0003-cards.js';
import { campaigns } from './0004-campaigns.js';
import { hotPaths } from './0005-hot-paths.js';
import { loyalty } from './0006-loyalty.js';
import { basketWrite } from './0007-basket-write.js';
import { sortimentGenerations } from './0008-sortiment-generations.js';
import { tokenSecurity } from './0009-token-security.js';
import { pointsHistory } from './0010-points-history.js';
import { outboxReceipts } from './0011-outbox-receipts.js';
import { checkout } from './0012-checkout.js';
import { notifications } from './0013-notifications.js';
import { portal } from './0014-portal.js';
import { withdrawalReservations } from './0017-withdrawal-reservations.js';
import { signInLimit } from './0018-sign-in-limit.js';
import { portalDevelopers } from './0019-portal-developers.js';
import { grant } from './0020-grant.js';
import { placeOrder } from './0021-place-order.js';
import { placeOrders } from './0022-place-orders.js';
import { cardLockEvents } from './0023-card-lock-events.js';
import { orderKeysOnce } from './0024-order-keys-once.js';
import { consumerPurchases } from './0025-consumer-purchases.js';
import { giftCardPrivacy } from './0026-gift-card-privacy.js';
import { rulePause } from './0027-rule-pause.js';
import { webhookEventOrder } from './0029-webhook-event-order.js';
import { dashboardSales } from './0030-dashboard-sales.js';
import { orderRefunds } from './0031-order-refunds.js';
import { cardOtpIssues } from './0032-card-otp-issues.js';
import { basketSearch } from './0033-basket-search.js';
import { merchantReceiptDetails } from './0034-merchant-receipt-details.js';
import { portalPages } from './0035-portal-pages.js';
import { dashboardDays } from './0036-dashboard-days.js';
import { dashboardChanges } from './0037-dashboard-changes.js';
import { campaignCodes } from './0038-campaign-codes.js';
import { campaignBudgets } from './0039-campaign-budgets.js';
import { tierMeasures } from './0040-tier-measures.js';
import { sortimentRawHash } from './0041-sortiment-raw-hash.js';
import { orderPricingJson } from './0042-order-pricing-json.js';
import { tierSpendReturns } from './0043-tier-spend-returns.js';
import { basketBillIndex } from './0044-basket-bill-index.js';
import { receiptIdCheck } from './0045-receipt-id-check.js';
import { orderRequestId } from './0046-order-request-id.js';
import { balanceTransactionProfileIndex } from './0047-balance-transaction-profile-index.js';
import { ledgerTransferReferences } from './0048-ledger-transfer-references.js';
import { basketBillNumber } from './0049-basket-bill-number.js';
import { sortimentArticleJson } from './0050-sortiment-article-json.js';
import { orderMerchantTimeIndex } from './0051-order-merchant-time-index.js';
import { idempotencyClaims } from './0052-idempotency-claims.js';
import { addressFailures } from './0053-address-failures.js';
import { unlinkedCardBaskets } from './0054-unlinked-card-baskets.js';
import { portalTeam } from './0055-portal-team.js';
import { portalPasswordResets } from './0056-portal-password-resets.js';
import { portalInvitations } from './0057-portal-invitations.js';
import { receiptNotifications } from './0058-receipt-notifications.js';
import { unsettledNotifications } from './0059-unsettled-notifications.js';
import { profileEmailChanges } from './0060-profile-email-changes.js';
import { merchantOrderTime } from './0061-merchant-order-time.js';
import { merchantRefundTime } from './0062-merchant-refund-time.js';
import { portalRefunds } from './0063-portal-refunds.js';
import { portalEnrolment } from './0064-portal-enrolment.js';
import { portalRequestFingerprint } from './0065-portal-request-fingerprint.js';
import { welcomeMailLookup } from './0066-welcome-mail-lookup.js';
import { ledgerAccountTime } from './0067-ledger-account-time.js';
import { pointsMovementsOwner } from './0068-points-movements-owner.js';
import { ledgerTransfersToken } from './0069-ledger-transfers-token.js';
import { orderBudgetBookings } from './0070-order-budget-bookings.js';
import { orderCampaignUsages } from './0071-order-campaign-usages.js';
import { orderCustomerUses } from './0072-order-customer-uses.js';
import { orderCampaignUsagesCustomer } from './0073-order-campaign-usages-customer.js';
import { orderBudgetsAtOnce } from './0074-order-budgets-at-once.js';
import type { Migration } from './migration.js';

/** Every migration, oldest first. A new one is appended here; a shipped one never changes. */
export const migrations: readonly Migration[] = [
  foundation,
  sortiment,
  cards,
  campaigns,
  hotPaths,
  loyalty,
  basketWrite,
  sortimentGenerations,
  tokenSecurity,
  pointsHistory,
  outboxReceipts,
  checkout,
  notifications,
  portal,
  withdrawalReservations,
  signInLimit,
  portalDevelopers,
  grant,
  placeOrder,
  placeOrders,
  cardLockEvents,
  orderKeysOnce,
  consumerPurchases,
  giftCardPrivacy,
  rulePause,
  webhookEventOrder,
  dashboardSales,
  orderRefunds,
  cardOtpIssues,
  basketSearch,
  merchantReceiptDetails,
  portalPages,
  dashboardDays,
  dashboardChanges,
  campaignCodes,
  campaignBudgets,
  tierMeasures,
  sortimentRawHash,
  orderPricingJson,
  tierSpendReturns,
  basketBillIndex,
  receiptIdCheck,
  orderRequestId,
  balanceTransactionProfileIndex,
  ledgerTransferReferences,
  basketBillNumber,
  sortimentArticleJson,
  orderMerchantTimeIndex,
  idempotencyClaims,
  addressFailures,
  unlinkedCardBaskets,
  portalTeam,
  portalPasswordResets,
  portalInvitations,
  receiptNotifications,
  unsettledNotifications,
  profileEmailChanges,
  merchantOrderTime,
  merchantRefundTime,
  portalRefunds,
  portalEnrolment,
  portalRequestFingerprint,
  welcomeMailLookup,
  ledgerAccountTime,
  pointsMovementsOwner,
  ledgerTransfersToken,
  orderBudgetBookings,
  orderCampaignUsages,
  orderCustomerUses,
  orderCampaignUsagesCustomer,
  orderBudgetsAtOnce,
];
