import { type CatalogEntry, entry } from './catalog-entry.js';

/**
 * The merchant portal's part of the error catalog (errors.ts), ids 3000-3099 (docs/decisions.md,
 * "Merchant portal"): sign-in, the team and its passwords, the developers page.
 */
export const portalUserErrors = {
  // Merchant portal (docs/decisions.md "Merchant portal")
  portalSignInFailed: entry(3000, 'sign_in_failed', 401, 'E-mail or password is wrong.'),
  portalLockedOut: entry(
    3001,
    'sign_in_locked',
    429,
    'Too many failed sign-ins: this account is locked for 15 minutes.',
  ),
  portalSignInThrottled: entry(
    3008,
    'sign_in_throttled',
    429,
    'Too many failed sign-ins from this address; retry after the seconds in Retry-After.',
  ),
  portalNotSignedIn: entry(3002, 'not_signed_in', 401, 'Not signed in, or the session has expired.'),
  portalCsrfInvalid: entry(3003, 'csrf_token_invalid', 403, 'The CSRF token is missing or wrong.'),
  portalRoleForbidden: entry(
    3004,
    'role_forbidden',
    403,
    'Only an owner may change campaigns, loyalty schemes, cards, balances and users.',
  ),
  portalUserExists: entry(3005, 'portal_user_exists', 409, 'A portal user with this e-mail exists.'),
  portalPasswordTooShort: entry(
    3006,
    'password_too_short',
    400,
    'The password must have at least 10 characters.',
  ),
  portalUserSelf: entry(
    3009,
    'portal_user_self',
    409,
    'You cannot remove yourself, change your own role or set your own password here; another owner can, and your own password is changed with the current one (PUT /portal/api/v1/me/password).',
  ),
  portalPasswordResetThrottled: entry(
    3011,
    'password_reset_throttled',
    429,
    'Too many password reset requests from this address; retry after the seconds in Retry-After.',
  ),
  portalInvitationsThrottled: entry(
    3013,
    'invitations_throttled',
    429,
    'Too many invitations by e-mail: at most 3 to one address and 20 per business in 24 hours. Retry after the seconds in Retry-After, or give the colleague a first password.',
  ),
  portalColleagueSignedIn: entry(
    3014,
    'colleague_signed_in',
    409,
    'This colleague has signed in before: an invitation is for one who never did. They use "Forgot your password?" on the sign-in page, or you set a new password for them.',
  ),
  portalPasswordResetInvalid: entry(
    3012,
    'password_reset_invalid',
    400,
    'The password reset link is unknown, used or expired; ask for a new one.',
  ),
  portalCurrentPasswordWrong: entry(
    3010,
    'current_password_wrong',
    400,
    'The current password is wrong; five wrong passwords in a row lock the account for 15 minutes.',
  ),
  // Merchant portal, developers page (docs/decisions.md "Merchant portal")
  portalDeliveryNotRetriable: entry(
    3007,
    'delivery_not_retriable',
    409,
    'The delivery cannot be retried: it was delivered, or an attempt is under way right now.',
  ),
  // A change sent twice (docs/decisions.md, "A balance correction sent twice")
  portalRequestReused: entry(
    3015,
    'request_id_reused',
    409,
    'This requestId was used for another change: a repeated request sends the same requestId, card and amount.',
  ),
  // Enrolling a customer (docs/decisions.md, "Enrolling a customer in the portal")
  portalProfileEmailTaken: entry(
    3016,
    'profile_email_taken',
    409,
    'A customer of this merchant has this e-mail address already (details.profileId); nothing was created.',
  ),
} as const satisfies Record<string, CatalogEntry>;
