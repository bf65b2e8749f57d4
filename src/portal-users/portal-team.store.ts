import type { Kysely, Transaction } from 'kysely';
import type { PageRequest } from '../shared/paging.js';
import type { DB } from '../store/schema.js';
import type { PortalRole } from './portal-user.store.js';

/**
 * A merchant's team in the portal: its users not removed, their roles, passwords and sessions
 * (migration 0055; docs/decisions.md, "The team: colleagues and passwords").
 */

export interface TeamMemberRow {
  id: number;
  email: string;
  role: PortalRole;
  createdAt: Date;
  lastSignedInAt: Date | null;
  lockedUntil: Date | null;
  /** Until when the link of an invitation not yet taken up works; null when none is open. */
  invitationOpenUntil: Date | null;
  /** When the latest invitation was mailed, open or expired, while none is taken up; else null. */
  invitedAt: Date | null;
}

/** The merchant's users not removed, oldest first, a page at a time (the key: the id). */
export async function listTeam(
  db: Kysely<DB>,
  merchantId: number,
  page: PageRequest,
  now: Date,
): Promise<TeamMemberRow[]> {
  // The invitations not taken up, in one look per user: the latest mailed, the latest expiry
  // (its link is open while that expiry is ahead).
  let q = db
    .selectFrom('portal_users as u')
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('portal_password_resets as r')
          .select((r) => [
            r.fn.max('r.created_at').as('invited_at'),
            r.fn.max('r.expires_at').as('expires_at'),
          ])
          .whereRef('r.user_id', '=', 'u.id')
          .where('r.purpose', '=', 'invitation')
          .where('r.used_at', 'is', null)
          .as('i'),
      (join) => join.onTrue(),
    )
    .select(['u.id', 'u.email', 'u.role', 'u.created_at', 'u.last_signed_in_at', 'u.locked_until'])
    .select(['i.invited_at', 'i.expires_at'])
    .where('u.merchant_id', '=', merchantId)
    .where('u.removed_at', 'is', null)
    .orderBy('u.id')
    .limit(page.limit + 1);
  if (page.after) q = q.where('u.id', '>', Number(page.after[0]));
  const rows = await q.execute();
  return rows.map((r) => ({
    id: r.id,
    email: r.email,
    role: r.role,
    createdAt: r.created_at,
    lastSignedInAt: r.last_signed_in_at,
    lockedUntil: r.locked_until,
    invitationOpenUntil:
      r.expires_at !== null && new Date(r.expires_at) > now ? new Date(r.expires_at) : null,
    invitedAt: r.invited_at === null ? null : new Date(r.invited_at),
  }));
}

/** A user's password hash and lock-out state, when the user exists and is not removed. */
export async function passwordOf(
  db: Kysely<DB>,
  userId: number,
): Promise<{ passwordHash: string; failedSignIns: number; lockedUntil: Date | null } | null> {
  const r = await db
    .selectFrom('portal_users')
    .select(['password_hash', 'failed_sign_ins', 'locked_until'])
    .where('id', '=', userId)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  return r
    ? { passwordHash: r.password_hash, failedSignIns: r.failed_sign_ins, lockedUntil: r.locked_until }
    : null;
}

/**
 * Runs `change` for an owner's change to a colleague, with the merchant's owners locked, so that
 * two owners changing each other at once are done one after the other: the second sees whether
 * its user is still an owner (two owners demoting each other would otherwise leave none). Answers
 * 'not_owner' when `actorId` is no longer an owner, 'unknown' when the colleague is not a user of
 * the merchant (or was removed), else what `change` answers.
 */
export async function withOwnersLocked<T>(
  db: Kysely<DB>,
  merchantId: number,
  actorId: number,
  colleagueId: number,
  change: (trx: Transaction<DB>, colleagueRole: PortalRole) => Promise<T>,
): Promise<T | 'not_owner' | 'unknown'> {
  return db.transaction().execute(async (trx) => {
    const owners = await trx
      .selectFrom('portal_users')
      .select('id')
      .where('merchant_id', '=', merchantId)
      .where('role', '=', 'owner')
      .where('removed_at', 'is', null)
      .orderBy('id')
      .forUpdate()
      .execute();
    if (!owners.some((o) => o.id === actorId)) return 'not_owner';
    const colleague = await trx
      .selectFrom('portal_users')
      .select('role')
      .where('id', '=', colleagueId)
      .where('merchant_id', '=', merchantId)
      .where('removed_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (!colleague) return 'unknown';
    return change(trx, colleague.role);
  });
}

export async function setRole(trx: Transaction<DB>, userId: number, role: PortalRole): Promise<void> {
  await trx.updateTable('portal_users').set({ role }).where('id', '=', userId).execute();
}

/** Marks the user removed by `by` and ends every session of theirs. */
export async function removeUser(trx: Transaction<DB>, userId: number, by: number, now: Date): Promise<void> {
  await trx
    .updateTable('portal_users')
    .set({ removed_at: now, removed_by: by, failed_sign_ins: 0, locked_until: null })
    .where('id', '=', userId)
    .execute();
  await trx.deleteFrom('portal_sessions').where('user_id', '=', userId).execute();
}

/**
 * A new password: the failures in a row and a lock-out are cleared, every session of the user
 * ends but the one under `keepTokenSha256` (the user's own, when they changed it themselves), and
 * every link mailed to set a forgotten password is spent (it was asked for the old password).
 */
export async function setPassword(
  db: Kysely<DB> | Transaction<DB>,
  userId: number,
  passwordHash: string,
  keepTokenSha256: string | null,
  now: Date,
): Promise<void> {
  const write = async (trx: Kysely<DB>) => {
    await trx
      .updateTable('portal_users')
      .set({ password_hash: passwordHash, failed_sign_ins: 0, locked_until: null })
      .where('id', '=', userId)
      .execute();
    let ended = trx.deleteFrom('portal_sessions').where('user_id', '=', userId);
    if (keepTokenSha256 !== null) ended = ended.where('token_sha256', '<>', keepTokenSha256);
    await ended.execute();
    await trx
      .updateTable('portal_password_resets')
      .set({ used_at: now })
      .where('user_id', '=', userId)
      .where('used_at', 'is', null)
      .execute();
  };
  if (db.isTransaction) await write(db);
  else await db.transaction().execute(write);
}
