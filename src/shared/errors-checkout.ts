import { type CatalogEntry, entry } from './catalog-entry.js';

/**
 * The checkout v1 part of the error catalog (errors.ts), ids 2000-2099 (docs/decisions.md,
 * "Checkout v1"): the wire shows the code, not the id.
 */
export const checkoutErrors = {
  checkoutUnauthorized: entry(
    2000,
    'unauthorized',
    401,
    'Authorization: Token is missing, unknown or revoked.',
  ),
  checkoutSecurityToken: entry(
    2001,
    'security_token_invalid',
    401,
    'Security-Token is missing or wrong: lowercase hex HMAC-SHA256 of Timestamp, Idempotency-Key and the body.',
  ),
  checkoutTimestamp: entry(
    2002,
    'timestamp_invalid',
    401,
    'Timestamp is missing, unreadable or more than 300 seconds from the server clock.',
  ),
  idempotencyKeyMissing: entry(2003, 'idempotency_key_missing', 400, 'Idempotency-Key header is required.'),
  idempotencyKeyReused: entry(
    2004,
    'idempotency_key_reused',
    422,
    'This Idempotency-Key was used with another request body.',
  ),
  idempotencyKeyInFlight: entry(
    2005,
    'idempotency_key_in_flight',
    409,
    'A request with this Idempotency-Key is still being processed; retry shortly.',
  ),
  idempotencyKeyInvalid: entry(
    2050,
    'idempotency_key_invalid',
    400,
    'Idempotency-Key must be 1 to 255 printable ASCII characters without spaces.',
  ),
  totalMismatch: entry(2006, 'total_mismatch', 422, 'totalGross differs from the computed total.'),
  checkoutInsufficientBalance: entry(
    2007,
    'insufficient_balance',
    422,
    'The balance (with the reservation) does not cover the amount.',
  ),
  reservationNotUsable: entry(
    2008,
    'reservation_not_usable',
    422,
    'The reservation is unknown, of another profile, expired, used or cancelled.',
  ),
  unknownPlu: entry(2009, 'unknown_plu', 422, 'No article with this PLU in the menu.'),
  duplicatePlu: entry(2010, 'duplicate_plu', 422, 'The PLU appears in more than one position.'),
  priceMissing: entry(2011, 'price_missing', 422, 'The article has no price in the order currency.'),
  vatRateMissing: entry(
    2028,
    'vat_rate_missing',
    422,
    'The article has no VAT rate for this consumption mode.',
  ),
  menuUnknown: entry(2012, 'menu_unknown', 422, 'menuId names no sortiment of the merchant.'),
  profileNotFound: entry(2013, 'profile_not_found', 404, 'No profile under this reference.'),
  profileReferenceUnusable: entry(
    2014,
    'profile_not_found',
    422,
    'profileReference is no linked customer card and no live one-time password.',
  ),
  topUpNotAllowed: entry(2015, 'top_up_not_allowed', 422, 'Top-ups are not allowed for this profile.'),
  topUpBelowMinimum: entry(2016, 'top_up_below_minimum', 422, 'The top-up is below minSingleTopUpAmount.'),
  topUpAboveMaximum: entry(2017, 'top_up_above_maximum', 422, 'The top-up is above maxSingleTopUpAmount.'),
  balanceAboveMaximum: entry(
    2018,
    'balance_above_maximum',
    422,
    'The balance would exceed the maxAmount of the profile.',
  ),
  monthlyTopUpExceeded: entry(
    2019,
    'monthly_top_up_exceeded',
    422,
    'The top-up would exceed maxMonthlyTopUpAmount for this calendar month.',
  ),
  chargeNotAllowed: entry(2020, 'charge_not_allowed', 422, 'Charges are not allowed for this profile.'),
  currencyMismatch: entry(2021, 'currency_mismatch', 422, 'The currency is not the currency of the balance.'),
  orderExists: entry(2022, 'order_exists', 409, 'An order with this basketId exists already.'),
  orderNotFound: entry(2023, 'order_not_found', 404, 'No order under this basketId.'),
  reservationNotFound: entry(2024, 'reservation_not_found', 404, 'No reservation under this reference.'),
  webhookEventUnknown: entry(
    2025,
    'webhook_event_unknown',
    422,
    'Unknown event; known: transaction.status.changed.',
  ),
  webhookUrlRefused: entry(
    2026,
    'webhook_url_refused',
    422,
    'The URL must be http(s) and must not address a private or loopback host.',
  ),
  webhookNotFound: entry(2027, 'webhook_not_found', 404, 'No webhook under this id.'),
  // Partial refunds (docs/decisions.md, "Reading back, lists and partial refunds")
  refundExceedsRefundable: entry(
    2060,
    'refund_exceeds_refundable',
    422,
    'The refund is more than what remains refundable of the order (details.refundableAmount).',
  ),
  refundPositionUnknown: entry(
    2061,
    'refund_position_unknown',
    422,
    'The order has no position under this positionId, or names it twice (details.positionId).',
  ),
  refundQuantityExceeds: entry(
    2062,
    'refund_quantity_exceeds',
    422,
    'The quantity is more than what remains of the position (details.positionId, details.remainingQuantity).',
  ),
  refundAmountAndPositions: entry(
    2063,
    'refund_amount_and_positions',
    422,
    'Give either amount or positions, not both.',
  ),
  // Refunds from the portal (docs/decisions.md, "Refunding an order from the portal")
  refundRequestReused: entry(
    2064,
    'refund_request_reused',
    409,
    'This requestId was used for another refund: a repeated request sends the same order, requestId and amount.',
  ),
} as const satisfies Record<string, CatalogEntry>;
