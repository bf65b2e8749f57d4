import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../shared/errors.js';
import { hashPassword } from './password.js';
import { type AccountDeps, MIN_PASSWORD_LENGTH } from './portal-auth.service.js';
import {
  type ResetTarget,
  createResetWithinLimit,
  type OpenLink,
  openLink,
  redeemReset,
  resetTarget,
} from './password-reset.store.js';

/**
 * A forgotten portal password (docs/decisions.md, "A forgotten password"): a link by e-mail that
 * sets a new one. Whether an e-mail belongs to a user is never told to the one who asks.
 */

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** A new link's token for the user of this e-mail; null when there is none, or their quota is used. */
export async function issueReset(
  { db, clock }: AccountDeps,
  email: string,
): Promise<{ token: string; target: ResetTarget } | null> {
  const target = await resetTarget(db, email.trim().toLowerCase());
  if (!target) return null;
  const { token, tokenSha256 } = newLinkToken();
  const stored = await createResetWithinLimit(db, target.userId, tokenSha256, clock.nowMs());
  return stored ? { token, target } : null;
}

/** The form of a link's token (43 characters of base64url): anything else is no link of ours. */
const TOKEN_FORM = /^[A-Za-z0-9_-]{43}$/;

/** A link that can still set a password (its page says so before the form is filled); null when not. */
export async function linkOpen({ db, clock }: AccountDeps, token: string): Promise<OpenLink | null> {
  return TOKEN_FORM.test(token) ? openLink(db, sha256(token), clock.nowMs()) : null;
}

/** A new link's token and what the store keeps of it (its SHA-256). */
export function newLinkToken(): { token: string; tokenSha256: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenSha256: sha256(token) };
}

/** Sets the new password of the link's user; 400 `password_reset_invalid` for a link that does not work. */
export async function resetPassword(
  { db, clock, passwordCost }: AccountDeps,
  token: string,
  newPassword: string,
): Promise<void> {
  if (newPassword.length < MIN_PASSWORD_LENGTH) throw new AppError('portalPasswordTooShort');
  // The hash is made before the link is looked at, so an unknown link costs the same time.
  const hash = await hashPassword(newPassword, passwordCost);
  const userId = TOKEN_FORM.test(token) ? await redeemReset(db, sha256(token), hash, clock.nowMs()) : null;
  if (userId === null) throw new AppError('portalPasswordResetInvalid');
}
