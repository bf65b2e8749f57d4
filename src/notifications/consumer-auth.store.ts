import { createHash, randomBytes } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';

/**
 * Sign-in to the consumer portal (docs/decisions.md, "Notifications, receipts and the consumer
 * portal"): a one-time link mailed to the profile's e-mail, its token random (256 bits), single
 * use, valid 15 minutes and stored only as its SHA-256; a session whose cookie value is random
 * and stored only as its SHA-256, with its own CSRF token for the forms that change things.
 */
export const SIGN_IN_TTL_MS = 15 * 60_000;
export const SESSION_TTL_MS = 30 * 86_400_000;

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const randomToken = () => randomBytes(32).toString('base64url');

export interface PortalProfile {
  readonly profileId: number;
  readonly merchantId: number;
  readonly merchantName: string;
  readonly email: string;
  readonly fullName: string | null;
  readonly language: string | null;
}

/** Every profile with this e-mail (one per merchant the consumer belongs to). */
export async function profilesByEmail(db: Kysely<DB>, email: string): Promise<PortalProfile[]> {
  const rows = await db
    .selectFrom('profiles as p')
    .innerJoin('merchants as m', 'm.id', 'p.merchant_id')
    .select(['p.id', 'p.merchant_id', 'm.display_name', 'p.email', 'p.full_name', 'p.language'])
    .where((eb) => eb(eb.fn('lower', ['p.email']), '=', email.trim().toLowerCase()))
    .orderBy('p.id')
    .limit(20)
    .execute();
  return rows.map((r) => ({
    profileId: r.id,
    merchantId: r.merchant_id,
    merchantName: r.display_name,
    email: r.email ?? email,
    fullName: r.full_name,
    language: r.language,
  }));
}

/** At most this many sign-in links per profile in SIGN_IN_TTL_MS (an inbox is not a target). */
export const SIGN_IN_LINKS_PER_WINDOW = 3;

/**
 * A new sign-in token for the profile, unless it was sent SIGN_IN_LINKS_PER_WINDOW links in the
 * last SIGN_IN_TTL_MS (null: nothing made, nothing to send). Only the token's hash is stored; the
 * profile's links that are spent or expired are deleted on the way.
 */
export async function createSignInWithinLimit(
  db: Kysely<DB>,
  profile: PortalProfile,
  nowMs: number,
): Promise<string | null> {
  // One request of the profile at a time counts and writes, so that requests side by side never
  // give it more than its quota (a transaction lock on the profile's id, in a namespace of its own).
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`sign-in:${profile.profileId}`}, 16))`.execute(
      trx,
    );
    await trx
      .deleteFrom('consumer_sign_ins')
      .where('profile_id', '=', profile.profileId)
      .where('created_at', '<=', new Date(nowMs - SIGN_IN_TTL_MS))
      .execute();
    const recent = await trx
      .selectFrom('consumer_sign_ins')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('profile_id', '=', profile.profileId)
      .where('created_at', '>', new Date(nowMs - SIGN_IN_TTL_MS))
      // No upper bound: a link written by a request that read the clock after this one (and took
      // the lock before it) counts too, or requests side by side could make a fourth link.
      .executeTakeFirstOrThrow();
    if (Number(recent.n) >= SIGN_IN_LINKS_PER_WINDOW) return null;
    return createSignIn(trx, profile, nowMs);
  });
}

/** A new sign-in token for the profile; only its hash is stored. */
export async function createSignIn(db: Kysely<DB>, profile: PortalProfile, nowMs: number): Promise<string> {
  const token = randomToken();
  await db
    .insertInto('consumer_sign_ins')
    .values({
      token_sha256: sha256(token),
      merchant_id: profile.merchantId,
      profile_id: profile.profileId,
      expires_at: new Date(nowMs + SIGN_IN_TTL_MS),
      created_at: new Date(nowMs),
    })
    .execute();
  return token;
}

export interface PortalSession {
  readonly profileId: number;
  readonly merchantId: number;
  readonly csrfToken: string;
}

/** Spends the token (once, before it expires) and opens a session; undefined when it cannot. */
export async function redeemSignIn(
  db: Kysely<DB>,
  token: string,
  nowMs: number,
): Promise<{ sessionId: string; session: PortalSession } | undefined> {
  const now = new Date(nowMs);
  return db.transaction().execute(async (trx) => {
    const spent = await trx
      .updateTable('consumer_sign_ins')
      .set({ spent_at: now })
      .where('token_sha256', '=', sha256(token))
      .where('spent_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['profile_id', 'merchant_id'])
      .executeTakeFirst();
    if (!spent) return undefined;
    const sessionId = randomToken();
    const csrfToken = randomToken();
    await trx
      .insertInto('consumer_sessions')
      .values({
        id_sha256: sha256(sessionId),
        merchant_id: spent.merchant_id,
        profile_id: spent.profile_id,
        csrf_token: csrfToken,
        expires_at: new Date(nowMs + SESSION_TTL_MS),
        created_at: now,
      })
      .execute();
    return { sessionId, session: { profileId: spent.profile_id, merchantId: spent.merchant_id, csrfToken } };
  });
}

export async function sessionOf(
  db: Kysely<DB>,
  sessionId: string,
  nowMs: number,
): Promise<PortalSession | undefined> {
  const row = await db
    .selectFrom('consumer_sessions')
    .select(['profile_id', 'merchant_id', 'csrf_token'])
    .where('id_sha256', '=', sha256(sessionId))
    .where('expires_at', '>', new Date(nowMs))
    .executeTakeFirst();
  return row && { profileId: row.profile_id, merchantId: row.merchant_id, csrfToken: row.csrf_token };
}

export async function endSession(db: Kysely<DB>, sessionId: string): Promise<void> {
  await db.deleteFrom('consumer_sessions').where('id_sha256', '=', sha256(sessionId)).execute();
}
