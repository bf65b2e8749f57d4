import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import type { PortalLang } from './portal-user.store.js';
import { setPassword } from './portal-team.store.js';

/**
 * Links to set a portal password (migrations 0056 and 0057): a forgotten one (docs/decisions.md,
 * "A forgotten password"), or the first one of a colleague an owner invited ("The team:
 * colleagues and passwords"; invitation.store.ts writes those). Only the token's SHA-256 is stored;
 * a link works once, for RESET_TTL_MS, an invitation for INVITATION_TTL_MS.
 */

export const RESET_TTL_MS = 30 * 60_000;
/** An invitation waits for a colleague who reads the mail after a weekend off. */
export const INVITATION_TTL_MS = 7 * 24 * 3_600_000;

export type LinkPurpose = 'reset' | 'invitation';
/** At most this many links per user in RESET_TTL_MS (an inbox is not a target). */
export const RESETS_PER_WINDOW = 3;

/** Whom a link goes to: a user not removed, with the language and the business the mail names. */
export interface ResetTarget {
  readonly userId: number;
  readonly email: string;
  readonly lang: PortalLang | null;
  readonly merchantName: string;
}

export async function resetTarget(db: Kysely<DB>, email: string): Promise<ResetTarget | null> {
  const r = await db
    .selectFrom('portal_users as u')
    .innerJoin('merchants as m', 'm.id', 'u.merchant_id')
    .select(['u.id', 'u.email', 'u.lang', 'm.display_name'])
    .where('u.email', '=', email)
    .where('u.removed_at', 'is', null)
    .executeTakeFirst();
  return r ? { userId: r.id, email: r.email, lang: r.lang, merchantName: r.display_name } : null;
}

/** Stores a link's token hash for the user, valid from `nowMs` for its purpose's time. */
export async function insertLink(
  db: Kysely<DB>,
  userId: number,
  tokenSha256: string,
  nowMs: number,
  purpose: LinkPurpose,
): Promise<void> {
  const ttlMs = purpose === 'invitation' ? INVITATION_TTL_MS : RESET_TTL_MS;
  await db
    .insertInto('portal_password_resets')
    .values({
      token_sha256: tokenSha256,
      user_id: userId,
      created_at: new Date(nowMs),
      expires_at: new Date(nowMs + ttlMs),
      purpose,
    })
    .execute();
}

/**
 * Stores a link's token hash for the user, unless they were sent RESETS_PER_WINDOW links in the last
 * RESET_TTL_MS (false: nothing stored, nothing to send). One request of the user at a time counts
 * and writes (a transaction lock on the user's id), so that requests side by side never pass it.
 */
export async function createResetWithinLimit(
  db: Kysely<DB>,
  userId: number,
  tokenSha256: string,
  nowMs: number,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`portal-reset:${userId}`}, 16))`.execute(trx);
    const since = new Date(nowMs - RESET_TTL_MS);
    // Old links of a forgotten password go; invitations stay, counted by insertInvitedUser's limits.
    await trx
      .deleteFrom('portal_password_resets')
      .where('user_id', '=', userId)
      .where('purpose', '=', 'reset')
      .where('created_at', '<=', since)
      .execute();
    const recent = await trx
      .selectFrom('portal_password_resets')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('user_id', '=', userId)
      .where('created_at', '>', since)
      .executeTakeFirstOrThrow();
    if (Number(recent.n) >= RESETS_PER_WINDOW) return false;
    await insertLink(trx, userId, tokenSha256, nowMs, 'reset');
    return true;
  });
}

/** A link that still sets a password: what it is for, and whose it is. */
export interface OpenLink {
  readonly purpose: LinkPurpose;
  readonly email: string;
  readonly merchantName: string;
}

/** The link under this token hash when it still sets a password (unused, unexpired, its user not removed). */
export async function openLink(db: Kysely<DB>, tokenSha256: string, nowMs: number): Promise<OpenLink | null> {
  const r = await db
    .selectFrom('portal_password_resets as r')
    .innerJoin('portal_users as u', 'u.id', 'r.user_id')
    .innerJoin('merchants as m', 'm.id', 'u.merchant_id')
    .select(['r.purpose', 'u.email', 'm.display_name'])
    .where('r.token_sha256', '=', tokenSha256)
    .where('r.used_at', 'is', null)
    .where('r.expires_at', '>', new Date(nowMs))
    .where('u.removed_at', 'is', null)
    .executeTakeFirst();
  return r ? { purpose: r.purpose, email: r.email, merchantName: r.display_name } : null;
}

/**
 * Uses a link: sets the password hash of its user, lifts a lock-out, ends every session of the
 * user and spends every other link of theirs (setPassword), all in one transaction. Null, with
 * nothing changed but the link spent, when the token is unknown, used or expired, or its user was
 * removed since.
 */
export async function redeemReset(
  db: Kysely<DB>,
  tokenSha256: string,
  passwordHash: string,
  nowMs: number,
): Promise<number | null> {
  const now = new Date(nowMs);
  return db.transaction().execute(async (trx) => {
    const link = await trx
      .updateTable('portal_password_resets')
      .set({ used_at: now })
      .where('token_sha256', '=', tokenSha256)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('user_id')
      .executeTakeFirst();
    if (!link) return null;
    const user = await trx
      .selectFrom('portal_users')
      .select('id')
      .where('id', '=', link.user_id)
      .where('removed_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!user) return null;
    await setPassword(trx, user.id, passwordHash, null, now);
    return user.id;
  });
}
