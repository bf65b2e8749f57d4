import { type Kysely, type Transaction, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import { type NewPortalUser, insertUser } from './portal-user.store.js';
import { insertLink } from './password-reset.store.js';

/**
 * Invitations by e-mail (docs/decisions.md, "The team: colleagues and passwords"): a link that sets
 * a new user's first password, kept with the links of a forgotten password (password-reset.store.ts)
 * and marked `invitation` (migration 0057).
 */

/** Invitations by e-mail in INVITATIONS_WINDOW_MS: to one address (whoever sends them), and per business. */
export const INVITATIONS_PER_ADDRESS = 3;
export const INVITATIONS_PER_MERCHANT = 20;
export const INVITATIONS_WINDOW_MS = 24 * 3_600_000;

/**
 * How long until one more invitation to `email` from the merchant is within INVITATIONS_PER_ADDRESS
 * and INVITATIONS_PER_MERCHANT; 0 when it is now. Takes transaction locks of the merchant and the
 * address first, so that invitations side by side are counted one after the other (removing a
 * colleague and inviting them again counts each time: the service sends nobody a stream of mails).
 */
async function invitationWait(
  trx: Transaction<DB>,
  merchantId: number,
  email: string,
  nowMs: number,
): Promise<number> {
  for (const key of [`portal-invite:${merchantId}`, `portal-invite:${email}`]) {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 16))`.execute(trx);
  }
  const since = new Date(nowMs - INVITATIONS_WINDOW_MS);
  const sent = (by: 'merchant' | 'address') =>
    trx
      .selectFrom('portal_password_resets as r')
      .innerJoin('portal_users as u', 'u.id', 'r.user_id')
      .select((eb) => [eb.fn.countAll<string>().as('n'), eb.fn.min('r.created_at').as('oldest')])
      .where('r.purpose', '=', 'invitation')
      .where('r.created_at', '>', since)
      .where(by === 'merchant' ? 'u.merchant_id' : 'u.email', '=', by === 'merchant' ? merchantId : email)
      .executeTakeFirstOrThrow();
  for (const [by, limit] of [
    ['merchant', INVITATIONS_PER_MERCHANT],
    ['address', INVITATIONS_PER_ADDRESS],
  ] as const) {
    const { n, oldest } = await sent(by);
    if (Number(n) >= limit && oldest !== null) {
      return Math.max(1, new Date(oldest).getTime() + INVITATIONS_WINDOW_MS - nowMs);
    }
  }
  return 0;
}

/**
 * A colleague invited by e-mail: the user (with a password nobody knows) and the link that sets
 * their first one, in one transaction. 'taken' when the e-mail is taken (by a user not removed);
 * `{ waitMs }`, with nothing written, beyond the limits (invitationWait).
 */
export async function insertInvitedUser(
  db: Kysely<DB>,
  user: NewPortalUser,
  tokenSha256: string,
  nowMs: number,
): Promise<number | 'taken' | { waitMs: number }> {
  return db.transaction().execute(async (trx) => {
    const waitMs = await invitationWait(trx, user.merchantId, user.email, nowMs);
    if (waitMs > 0) return { waitMs };
    const id = await insertUser(trx, user, nowMs);
    if (id === null) return 'taken';
    await insertLink(trx, id, tokenSha256, nowMs, 'invitation');
    return id;
  });
}

/**
 * The invitation sent again to a colleague who never signed in, in an owner's change (the
 * transaction holds the colleague locked): a new link beside the earlier ones, within the limits.
 * 'signed_in' when they have signed in since (an invitation is not their way back: "Forgot your
 * password?" is).
 */
export async function reinvite(
  trx: Transaction<DB>,
  userId: number,
  tokenSha256: string,
  nowMs: number,
): Promise<{ sentTo: string } | 'signed_in' | { waitMs: number }> {
  const user = await trx
    .selectFrom('portal_users')
    .select(['merchant_id', 'email', 'last_signed_in_at'])
    .where('id', '=', userId)
    .executeTakeFirstOrThrow();
  if (user.last_signed_in_at !== null) return 'signed_in';
  const waitMs = await invitationWait(trx, user.merchant_id, user.email, nowMs);
  if (waitMs > 0) return { waitMs };
  await insertLink(trx, userId, tokenSha256, nowMs, 'invitation');
  return { sentTo: user.email };
}
