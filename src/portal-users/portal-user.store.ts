import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';

/** The portal's users and sessions (migration 0014). */

export type PortalRole = 'owner' | 'staff';
export type PortalLang = 'de' | 'en';

export interface PortalUserRow {
  id: number;
  merchantId: number;
  email: string;
  passwordHash: string;
  role: PortalRole;
  lang: PortalLang | null;
  failedSignIns: number;
  lockedUntil: Date | null;
}

export async function findUserByEmail(db: Kysely<DB>, email: string): Promise<PortalUserRow | null> {
  const r = await db
    .selectFrom('portal_users')
    .selectAll()
    .where('email', '=', email)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  if (!r) return null;
  return {
    id: r.id,
    merchantId: r.merchant_id,
    email: r.email,
    passwordHash: r.password_hash,
    role: r.role,
    lang: r.lang,
    failedSignIns: r.failed_sign_ins,
    lockedUntil: r.locked_until,
  };
}

export async function countUsers(db: Kysely<DB>, merchantId: number): Promise<number> {
  const r = await db
    .selectFrom('portal_users')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('merchant_id', '=', merchantId)
    .where('removed_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(r.n);
}

/** A portal user to insert: the e-mail normalised, the password hashed. */
export interface NewPortalUser {
  merchantId: number;
  email: string;
  passwordHash: string;
  role: PortalRole;
  lang: PortalLang | null;
}

/**
 * Inserts the user, made at `nowMs` (the service's clock, as their invitation and sign-ins are);
 * null when the e-mail is taken (by a user not removed).
 */
export async function insertUser(db: Kysely<DB>, user: NewPortalUser, nowMs: number): Promise<number | null> {
  const row = await db
    .insertInto('portal_users')
    .values({
      merchant_id: user.merchantId,
      email: user.email,
      password_hash: user.passwordHash,
      role: user.role,
      lang: user.lang,
      created_at: new Date(nowMs),
    })
    .onConflict((oc) => oc.column('email').where('removed_at', 'is', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  return row ? row.id : null;
}

/** Records a failed sign-in; the fifth in a row locks the account until `lockUntil`. */
export async function recordFailure(
  db: Kysely<DB>,
  userId: number,
  maxFailures: number,
  lockUntil: Date,
): Promise<void> {
  await db
    .updateTable('portal_users')
    .set((eb) => ({
      failed_sign_ins: eb
        .case()
        .when('failed_sign_ins', '>=', maxFailures - 1)
        .then(0)
        .else(eb('failed_sign_ins', '+', 1))
        .end(),
      locked_until: eb
        .case()
        .when('failed_sign_ins', '>=', maxFailures - 1)
        .then(lockUntil)
        .else(eb.ref('locked_until'))
        .end(),
    }))
    .where('id', '=', userId)
    .execute();
}

/** A sign-in that succeeded: the failures in a row start again from 0. */
export async function recordSignIn(db: Kysely<DB>, userId: number, now: Date): Promise<void> {
  await db
    .updateTable('portal_users')
    .set({ failed_sign_ins: 0, locked_until: null, last_signed_in_at: now })
    .where('id', '=', userId)
    .execute();
}

export async function setUserLang(db: Kysely<DB>, userId: number, lang: PortalLang): Promise<void> {
  await db.updateTable('portal_users').set({ lang }).where('id', '=', userId).execute();
}

export async function insertSession(
  db: Kysely<DB>,
  s: {
    tokenSha256: string;
    userId: number;
    merchantId: number;
    csrfToken: string;
    now: Date;
    expiresAt: Date;
  },
): Promise<void> {
  await db
    .insertInto('portal_sessions')
    .values({
      token_sha256: s.tokenSha256,
      user_id: s.userId,
      merchant_id: s.merchantId,
      csrf_token: s.csrfToken,
      created_at: s.now,
      expires_at: s.expiresAt,
    })
    .execute();
}

export interface SessionRow {
  userId: number;
  merchantId: number;
  csrfToken: string;
  email: string;
  role: PortalRole;
  lang: PortalLang | null;
  serviceUserName: string;
  displayName: string;
  currency: string;
  timeZone: string;
}

/** The unexpired session under this token hash, with its user (not removed) and merchant. */
export async function findSession(
  db: Kysely<DB>,
  tokenSha256: string,
  now: Date,
): Promise<SessionRow | null> {
  const r = await db
    .selectFrom('portal_sessions as s')
    .innerJoin('portal_users as u', 'u.id', 's.user_id')
    .innerJoin('merchants as m', 'm.id', 's.merchant_id')
    .select([
      's.user_id',
      's.merchant_id',
      's.csrf_token',
      'u.email',
      'u.role',
      'u.lang',
      'm.service_user_name',
      'm.display_name',
      'm.currency',
      'm.time_zone',
    ])
    .where('s.token_sha256', '=', tokenSha256)
    .where('s.expires_at', '>', now)
    // A sign-in that checked the password before an owner removed the user may write its session
    // after the removal deleted the others: it opens nothing.
    .where('u.removed_at', 'is', null)
    .executeTakeFirst();
  if (!r) return null;
  return {
    userId: r.user_id,
    merchantId: r.merchant_id,
    csrfToken: r.csrf_token,
    email: r.email,
    role: r.role,
    lang: r.lang,
    serviceUserName: r.service_user_name,
    displayName: r.display_name,
    currency: r.currency.trim(),
    timeZone: r.time_zone,
  };
}

/** Deletes the session, and every expired one with it. */
export async function deleteSession(db: Kysely<DB>, tokenSha256: string, now: Date): Promise<void> {
  await db
    .deleteFrom('portal_sessions')
    .where((eb) => eb.or([eb('token_sha256', '=', tokenSha256), eb('expires_at', '<=', now)]))
    .execute();
}

export async function recordCorrection(
  db: Kysely<DB>,
  c: {
    transactionId: string;
    merchantId: number;
    userId: number;
    tokenId: string;
    reason: string;
    now: Date;
  },
): Promise<'recorded' | 'same' | 'other'> {
  const written = await db
    .insertInto('portal_corrections')
    .values({
      transaction_id: c.transactionId,
      merchant_id: c.merchantId,
      user_id: c.userId,
      token_id: c.tokenId,
      reason: c.reason,
      created_at: c.now,
    })
    .onConflict((oc) => oc.column('transaction_id').doNothing())
    .executeTakeFirst();
  if (Number(written.numInsertedOrUpdatedRows ?? 0) === 1) return 'recorded';
  // A correction sent again: the same merchant's and card's is the same one.
  const first = await db
    .selectFrom('portal_corrections')
    .select(['merchant_id', 'token_id'])
    .where('transaction_id', '=', c.transactionId)
    .executeTakeFirst();
  return first && Number(first.merchant_id) === c.merchantId && first.token_id === c.tokenId
    ? 'same'
    : 'other';
}

/** Removes the reason of a correction whose posting was refused (only the request that wrote it). */
export async function forgetCorrection(
  db: Kysely<DB>,
  merchantId: number,
  transactionId: string,
): Promise<void> {
  await db
    .deleteFrom('portal_corrections')
    .where('merchant_id', '=', merchantId)
    .where('transaction_id', '=', transactionId)
    .execute();
}

/** The reasons of the portal's corrections among these transactions. */
export async function correctionReasons(
  db: Kysely<DB>,
  merchantId: number,
  transactionIds: string[],
): Promise<Map<string, string>> {
  if (transactionIds.length === 0) return new Map();
  const rows = await db
    .selectFrom('portal_corrections')
    .select(['transaction_id', 'reason'])
    .where('merchant_id', '=', merchantId)
    .where('transaction_id', 'in', transactionIds)
    .execute();
  return new Map(rows.map((r) => [r.transaction_id, r.reason]));
}
