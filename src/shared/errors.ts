import { type CatalogEntry, entry } from './catalog-entry.js';
import { checkoutErrors } from './errors-checkout.js';
import { portalUserErrors } from './errors-portal.js';

export type { CatalogEntry } from './catalog-entry.js';

/**
 * The error catalog: every error the service answers with, in one place (the checkout v1 entries
 * in errors-checkout.ts and the merchant portal's in errors-portal.ts, spread in at their place).
 *
 * POS v3 renders an entry as `{ErrorId, ErrorText}` (JSON or XML); the checkout v1 and operator
 * APIs render it as `{"error": {"code", "message", "details"}}`. Ids below 10000 other than 1000
 * are ours (the documents give only 1000 and the 1xxxx ids).
 */
export const errors = {
  // Everywhere
  internal: entry(1, 'internal_error', 500, 'Processing failure.'),
  invalidBody: entry(1000, 'invalid_request', 400, 'Body has syntax errors and cannot be deserialised.'),
  // 1000 as well, for requests that were read but break a rule (another currency than the
  // merchant's, a repeated PositionId, ...): the id tills know, a text that does not claim a
  // syntax error (docs/decisions.md).
  refused: entry(1000, 'invalid_request', 400, 'The request is well-formed but not accepted:'),
  devKeyInvalid: entry(1001, 'dev_key_invalid', 401, 'DevKey is missing or unknown.'),
  trackingUnitInvalid: entry(
    1002,
    'tracking_unit_invalid',
    401,
    'trackingUnitId is missing, unknown or registered with another DevKey.',
  ),
  securityTokenInvalid: entry(1003, 'security_token_invalid', 401, 'SecurityToken is missing or wrong.'),
  trackingUnitInactive: entry(
    1004,
    'tracking_unit_inactive',
    403,
    'trackingUnitId is not yet activated by the merchant.',
  ),
  merchantUnknown: entry(1005, 'merchant_unknown', 404, 'User name unknown or without brands.'),
  routeNotFound: entry(1006, 'not_found', 404, 'No such resource.'),
  unsupportedMediaType: entry(
    1007,
    'unsupported_media_type',
    415,
    'Content-Type must be application/json or application/xml.',
  ),
  payloadTooLarge: entry(1008, 'payload_too_large', 413, 'Request body is larger than the service accepts.'),
  unsupportedEncoding: entry(
    1009,
    'unsupported_content_encoding',
    415,
    'Content-Encoding must be gzip, deflate or br.',
  ),
  unavailable: entry(1010, 'service_unavailable', 503, 'The service is not ready; retry shortly.'),
  methodNotAllowed: entry(1011, 'method_not_allowed', 405, 'Method not allowed on this resource.'),
  unauthorized: entry(1012, 'unauthorized', 401, 'Authorization is missing or wrong.'),
  notFound: entry(1013, 'not_found', 404, 'No such record.'),
  conflict: entry(1014, 'conflict', 409, 'The record exists already.'),
  // Backups of the embedded database (docs/decisions.md, "Backups of the embedded database")
  backupOnPostgres: entry(
    1080,
    'backup_on_postgres',
    409,
    "This service keeps its data in PostgreSQL: back it up with PostgreSQL's own tools (pg_dump, pg_basebackup).",
  ),
  // Parse limits (docs/security.md, "Authentication before the body and parse limits")
  listTooLong: entry(
    1030,
    'list_too_long',
    400,
    'The request holds more elements or list items than the service accepts.',
  ),
  tooManyArticles: entry(
    1031,
    'too_many_articles',
    400,
    'The bulk upload holds more articles than the service accepts; send the rest in another upload with changedArticlesOnly=true.',
  ),

  // Limits against abuse (docs/security.md)
  operatorAuthThrottled: entry(
    1020,
    'too_many_failed_authentications',
    429,
    'Too many failed authentications from this address; retry after the seconds in Retry-After.',
  ),
  requestTimeout: entry(1021, 'request_timeout', 408, 'The request body did not arrive in time.'),
  bodyTooSlow: entry(
    1022,
    'request_body_too_slow',
    408,
    'The request body arrives slower than the service accepts.',
  ),
  uriTooLong: entry(1023, 'uri_too_long', 414, 'The URL or one of its path segments is too long.'),
  headersTooLarge: entry(
    1024,
    'header_fields_too_large',
    431,
    'The request line and headers are larger than the service accepts.',
  ),
  badRequest: entry(1025, 'bad_request', 400, 'The request is not valid HTTP.'),
  badUrl: entry(1026, 'invalid_url', 400, 'The URL is not valid (malformed percent-encoding).'),
  headersTimeout: entry(1027, 'headers_timeout', 408, 'The request headers did not arrive in time.'),

  // Paging of every list (docs/decisions.md "Paging")
  invalidCursor: entry(1060, 'invalid_cursor', 400, 'cursor is not one that this list gave out.'),

  // Campaigns and loyalty schemes (operator API)
  ruleInvalid: entry(1000, 'invalid_request', 400, 'The definition is not valid:'),
  ruleEnded: entry(
    1040,
    'rule_ended',
    409,
    'The campaign or loyalty scheme has ended; create a new one instead of changing it.',
  ),
  // Unique codes of a campaign (docs/decisions.md, "Unique codes")
  codeBatchInvalid: entry(1000, 'invalid_request', 400, 'The code batch is not valid:'),
  campaignWithoutCodes: entry(
    1070,
    'campaign_without_codes',
    409,
    'The campaign takes no unique codes: set uniqueCodes to true on it (a new version) first.',
  ),
  campaignCodesExhausted: entry(
    1071,
    'campaign_codes_exhausted',
    409,
    'No more distinct codes of this prefix and length could be made; choose a longer length or another prefix.',
  ),

  // Credentials and SecurityTokens (docs/security.md, "SecurityTokens, secrets and keys")
  transactionIdRequired: entry(
    1041,
    'transaction_id_required',
    400,
    'transactionId is required for this merchant, and the SecurityToken covers it.',
  ),
  trackingUnitDeactivated: entry(
    1042,
    'tracking_unit_deactivated',
    403,
    'trackingUnitId was deactivated by the operator.',
  ),
  devKeyRevoked: entry(1043, 'dev_key_revoked', 401, 'DevKey was revoked by the operator.'),
  securityTokenV2Required: entry(
    1044,
    'security_token_v2_required',
    401,
    'This trackingUnit must sign with the SecurityToken-V2 header; the MD5 SecurityToken is not accepted.',
  ),
  securityTokenV2Invalid: entry(
    1045,
    'security_token_v2_invalid',
    401,
    'SecurityToken-V2 is malformed or its signature is wrong.',
  ),
  securityTokenV2Expired: entry(
    1046,
    'security_token_v2_expired',
    401,
    'SecurityToken-V2 timestamp is more than 300 seconds from the server clock.',
  ),
  securityTokenV2Replayed: entry(
    1047,
    'security_token_v2_replayed',
    401,
    'SecurityToken-V2 signature was used before; sign every request anew.',
  ),
  bulkUploadRunning: entry(
    1050,
    'bulk_upload_running',
    429,
    'This terminal runs as many bulk uploads as it may at once; retry after the seconds in Retry-After.',
  ),
  bulkUploadsBusy: entry(
    1051,
    'bulk_uploads_busy',
    503,
    'The service runs as many bulk uploads as it takes at once; retry after the seconds in Retry-After.',
  ),
  identificationThrottled: entry(
    1048,
    'identification_throttled',
    429,
    'Too many failed one-time password identifications; repeat without them or retry after a minute.',
  ),
  tooManyPasswordCandidates: entry(
    1049,
    'too_many_password_candidates',
    400,
    'More than 3 ContextIdentifiers shaped like a one-time password that identify nobody.',
  ),

  ...checkoutErrors,

  // Registration and merchants
  userNameUnknown: entry(10001, 'user_name_unknown', 400, 'Unknown user name.'),
  instanceNameMissing: entry(10002, 'instance_name_missing', 400, 'No instance name given.'),
  outletNotOfMerchant: entry(10003, 'outlet_unknown', 400, 'The outlet is not an outlet of this merchant.'),
  brandUnknown: entry(10004, 'brand_unknown', 404, 'The brand is not a brand of this merchant.'),

  // Baskets
  consumerTokenUnknown: entry(
    11004,
    'consumer_token_unknown',
    400,
    'consumerIdentToken not found. Repeat without the token.',
  ),
  consumerTokenLocked: entry(
    11005,
    'consumer_token_locked',
    400,
    'consumerIdentToken locked. Repeat without the token.',
  ),
  consumerTokenExpired: entry(
    11006,
    'consumer_token_expired',
    400,
    'consumerIdentToken expired. Repeat without the token.',
  ),
  giftCardUnknown: entry(11007, 'gift_card_unknown', 400, 'giftCardId not found. Repeat without it.'),
  giftCardLocked: entry(11008, 'gift_card_locked', 400, 'giftCardId locked. Repeat without it.'),
  giftCardExpired: entry(11009, 'gift_card_expired', 400, 'giftCardId expired. Repeat without it.'),
  basketGranted: entry(11010, 'basket_granted', 400, 'Basket is granted and cannot be changed.'),
  basketUnknown: entry(11011, 'basket_unknown', 404, 'No basket under this basketId.'),
  returnExceedsSold: entry(11012, 'return_exceeds_sold', 400, 'The return exceeds what was sold.'),
  basketNotGranted: entry(
    11013,
    'basket_not_granted',
    400,
    'The basket is not granted; only a granted basket can be returned.',
  ),
  returnIdReused: entry(
    11014,
    'return_id_reused',
    400,
    'This ReturnId was used for another return of this basket.',
  ),
  billPdfNotPdf: entry(
    11015,
    'bill_pdf_not_pdf',
    400,
    'BillPdf is not a PDF: its bytes must start with %PDF- and end with %%EOF. Nothing was stored.',
  ),

  // Sortiments
  sortimentUnknown: entry(12001, 'sortiment_unknown', 400, 'Sortiment id unknown.'),
  upGroupUnknown: entry(12003, 'up_group_unknown', 400, 'No product group under the given UpGroupId.'),
  nameMissing: entry(12005, 'name_missing', 400, 'Name missing although expected in at least one language.'),
  articleUnknown: entry(12006, 'article_unknown', 400, 'No item under the given id/PLU. Use create instead.'),
  articleNotFound: entry(12006, 'article_unknown', 404, 'No item under the given id/PLU.'),
  groupIdChanged: entry(
    12007,
    'group_id_changed',
    400,
    'GroupId must not be changed. Delete the item and create it again in the other group.',
  ),
  pluMissing: entry(12008, 'plu_missing', 400, 'PLU field not set.'),
  articleExists: entry(
    12009,
    'article_exists',
    400,
    'An article with this PLU already exists in the given group.',
  ),
  groupExists: entry(12010, 'group_exists', 400, 'A group with this Id exists already.'),
  groupUnknown: entry(12011, 'group_unknown', 400, 'No group under this Id.'),
  groupNotEmpty: entry(12012, 'group_not_empty', 400, 'The group still holds articles or groups.'),

  ...portalUserErrors,

  // Cards
  cardUnknown: entry(13000, 'card_unknown', 404, 'No card under this id.'),
  cardRegistered: entry(13001, 'card_registered', 400, 'A card with this id is registered already.'),
  cardLocked: entry(13002, 'card_locked', 400, 'The card is locked or expired.'),
  insufficientBalance: entry(13003, 'insufficient_balance', 400, 'Insufficient balance.'),
  aboveMaximumBalance: entry(13004, 'above_maximum_balance', 400, 'The balance would exceed its maximum.'),
  balanceNotZero: entry(13005, 'balance_not_zero', 400, 'The balance of the card is not zero.'),
  invalidAmount: entry(
    13006,
    'invalid_amount',
    400,
    'The amount must be greater than zero with at most two decimals.',
  ),
  transactionIdReused: entry(
    13007,
    'transaction_id_reused',
    400,
    'This transactionId was used for another card, amount or operation.',
  ),
  // Receipts and the consumer portal (4000-4099)
  receiptUnknown: entry(4000, 'receipt_unknown', 404, 'No receipt has this id.'),
  consumerSignInRequired: entry(4001, 'sign_in_required', 401, 'Sign in to the consumer portal first.'),
  csrfTokenInvalid: entry(
    4002,
    'csrf_token_invalid',
    403,
    'The form is outdated or was not sent by this site; reload the page.',
  ),
  signInLinkInvalid: entry(
    4003,
    'sign_in_link_invalid',
    400,
    'The sign-in link is unknown, used or expired; ask for a new one.',
  ),
  pushSubscriptionInvalid: entry(
    4004,
    'push_subscription_invalid',
    400,
    'The push subscription is not one a browser makes (an https endpoint on a public address, p256dh and auth keys).',
  ),
  // Sending a receipt again from the portal (docs/decisions.md, "Sending the receipt again")
  receiptMailPending: entry(
    4005,
    'receipt_mail_pending',
    409,
    'The receipt mail is still on its way (being sent, or waiting for its next try); send it again once that try is over.',
  ),
  receiptMailNobody: entry(
    4006,
    'receipt_mail_nobody',
    409,
    'Nobody to send the receipt to: the basket has no customer profile, or the profile has neither an e-mail address nor push.',
  ),
  receiptMissing: entry(
    4007,
    'receipt_missing',
    409,
    'The basket has no receipt yet: a receipt is made when the basket is granted.',
  ),
  receiptMailPaidOtherwise: entry(
    4008,
    'receipt_mail_paid_otherwise',
    409,
    'The order was not paid from the balance: the shop took the payment and gives the customer its receipt, so no receipt mail was sent for it to send again.',
  ),
  welcomeMailPending: entry(
    4009,
    'welcome_mail_pending',
    409,
    'The welcome mail is still on its way (being sent, or waiting for its next try); send it again once that try is over.',
  ),
  welcomeMailNoAddress: entry(
    4010,
    'welcome_mail_no_address',
    409,
    'The customer has no e-mail address to send the welcome mail to; an owner adds one first.',
  ),
} as const satisfies Record<string, CatalogEntry>;

export type ErrorName = keyof typeof errors;

/** An expected failure that the HTTP edge renders from the catalog. */
export class AppError extends Error {
  readonly entry: CatalogEntry;
  readonly detail: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  /** Extra top-level fields of a POS error body (bulk upload lists its `Errors`). */
  readonly extra: Record<string, unknown> | undefined;

  constructor(
    name: ErrorName | CatalogEntry,
    detail?: string,
    options: { details?: Record<string, unknown>; extra?: Record<string, unknown> } = {},
  ) {
    const e = typeof name === 'string' ? errors[name] : name;
    super(detail ? `${e.text} ${detail}` : e.text);
    this.entry = e;
    this.detail = detail;
    this.details = options.details;
    this.extra = options.extra;
  }

  get statusCode(): number {
    return this.entry.status;
  }
}

/** Every catalogued entry, for the API reference and docs/errors.md. */
export function catalogEntries(): CatalogEntry[] {
  const seen = new Set<string>();
  const out: CatalogEntry[] = [];
  for (const e of Object.values(errors) as CatalogEntry[]) {
    const key = `${e.errorId}/${e.status}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(e);
  }
  return out.sort((a, b) => a.errorId - b.errorId || a.status - b.status);
}
