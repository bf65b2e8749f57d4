import { type Kysely, type Transaction, sql } from 'kysely';
import type { DB } from '../store/schema.js';

type Db = Kysely<DB> | Transaction<DB>;

/** A profile's columns as written at creation (checkout v1 "balance.config" in minor units). */
export interface ProfileRecord {
  readonly merchantId: number;
  readonly accountId: number;
  readonly fullName: string | null;
  readonly email: string | null;
  readonly language: string | null;
  readonly partnerUserId: string | null;
  readonly isTopUpAllowed: boolean;
  readonly isChargeAllowed: boolean;
  readonly maxAmountMinor: number | null;
  readonly maxSingleTopUpMinor: number | null;
  readonly minSingleTopUpMinor: number | null;
  readonly maxMonthlyTopUpMinor: number | null;
  /** A customer enrolled in the portal: by whom, and the request's own id. */
  readonly enrolment?: {
    readonly portalUserId: number;
    readonly requestId: string;
    /** What the request asked, hashed: a repeat is compared with it. */
    readonly fingerprint: string;
  };
}

/** Inserts the profile; null when its enrolment's request id is the merchant's already (the request sent twice). */
export async function insertProfile(trx: Transaction<DB>, p: ProfileRecord): Promise<number | null> {
  const row = await trx
    .insertInto('profiles')
    .values({
      merchant_id: p.merchantId,
      full_name: p.fullName,
      email: p.email,
      language: p.language,
      partner_user_id: p.partnerUserId,
      account_id: p.accountId,
      is_top_up_allowed: p.isTopUpAllowed,
      is_charge_allowed: p.isChargeAllowed,
      max_amount_minor: p.maxAmountMinor,
      max_single_top_up_minor: p.maxSingleTopUpMinor,
      min_single_top_up_minor: p.minSingleTopUpMinor,
      max_monthly_top_up_minor: p.maxMonthlyTopUpMinor,
      created_by_portal_user_id: p.enrolment?.portalUserId ?? null,
      portal_request_id: p.enrolment?.requestId ?? null,
      portal_request_fingerprint: p.enrolment?.fingerprint ?? null,
    })
    .onConflict((oc) =>
      oc.columns(['merchant_id', 'portal_request_id']).where('portal_request_id', 'is not', null).doNothing(),
    )
    .returning('id')
    .executeTakeFirst();
  return row?.id ?? null;
}

/** The customer a portal enrolment request created, with what it was given. */
export async function profileByRequest(db: Db, merchantId: number, requestId: string) {
  return db
    .selectFrom('profiles')
    .select(['id', 'full_name', 'email', 'language', 'portal_request_fingerprint'])
    .where('merchant_id', '=', merchantId)
    .where('portal_request_id', '=', requestId)
    .executeTakeFirst();
}

/**
 * The merchant's customer with this e-mail address (compared without regard to case), after
 * taking the transaction's lock on the address, so that two enrolments of one address at the same
 * moment find each other.
 */
export async function lockedProfileWithEmail(
  trx: Transaction<DB>,
  merchantId: number,
  email: string,
): Promise<number | null> {
  const key = `profile-email:${merchantId}:${email.toLowerCase()}`;
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
  const row = await trx
    .selectFrom('profiles')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where(sql<string>`lower(email)`, '=', email.toLowerCase())
    .orderBy('id')
    .limit(1)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** Tags a profile, creating the merchant's tags of these names that do not exist yet. */
export async function tagProfile(
  trx: Transaction<DB>,
  merchantId: number,
  profileId: number,
  names: readonly string[],
): Promise<void> {
  if (names.length === 0) return;
  await trx
    .insertInto('tags')
    .values(names.map((name) => ({ merchant_id: merchantId, name })))
    .onConflict((oc) => oc.columns(['merchant_id', 'name']).doNothing())
    .execute();
  const tags = await trx
    .selectFrom('tags')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('name', 'in', names)
    .execute();
  await trx
    .insertInto('profile_tags')
    .values(tags.map((t) => ({ merchant_id: merchantId, profile_id: profileId, tag_id: t.id })))
    .execute();
}

/** A profile with its merchant's name and its account's balance. */
export async function profileRow(db: Db, id: number) {
  return db
    .selectFrom('profiles as p')
    .innerJoin('merchants as m', 'm.id', 'p.merchant_id')
    .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
    .selectAll('p')
    .select(['m.service_user_name', 'a.balance_minor', 'a.currency'])
    .where('p.id', '=', id)
    .executeTakeFirst();
}

export async function profileTags(db: Db, profileId: number): Promise<{ id: number; name: string }[]> {
  return db
    .selectFrom('profile_tags as pt')
    .innerJoin('tags as t', 't.id', 'pt.tag_id')
    .select(['t.id', 't.name'])
    .where('pt.profile_id', '=', profileId)
    .orderBy('t.id')
    .execute();
}

/** The cards linked to a profile, in the order they were registered. */
export async function profileCards(db: Db, merchantId: number, profileId: number) {
  return db
    .selectFrom('cards')
    .select(['token_id', 'token_type', 'state', 'expires_at'])
    .where('merchant_id', '=', merchantId)
    .where('profile_id', '=', profileId)
    .orderBy('id')
    .execute();
}

/** A profile's merchant, account and currency; locked for update inside a transaction when asked. */
export async function profileAccount(
  db: Db,
  id: number,
  options: { forUpdate?: boolean } = {},
): Promise<{ merchantId: number; accountId: number; currency: string } | undefined> {
  let query = db
    .selectFrom('profiles as p')
    .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
    .select(['p.merchant_id', 'p.account_id', 'a.currency'])
    .where('p.id', '=', id);
  if (options.forUpdate) query = query.forUpdate();
  const row = await query.executeTakeFirst();
  return row && { merchantId: row.merchant_id, accountId: row.account_id, currency: row.currency.trim() };
}

/**
 * Stores a one-time password's hash, unless a live one of the same value exists (a dead one, spent
 * or expired, is reused). True when it was stored.
 */
export async function storeOtp(
  db: Db,
  o: { merchantId: number; profileId: number; otpSha256: string; expiresAtMs: number; nowMs: number },
): Promise<boolean> {
  const row = await db
    .insertInto('profile_otps')
    .values({
      merchant_id: o.merchantId,
      otp_sha256: o.otpSha256,
      profile_id: o.profileId,
      expires_at: new Date(o.expiresAtMs),
      spent_at: null,
      created_at: new Date(o.nowMs),
    })
    .onConflict((oc) =>
      oc
        .columns(['merchant_id', 'otp_sha256'])
        .doUpdateSet({
          profile_id: o.profileId,
          expires_at: new Date(o.expiresAtMs),
          spent_at: null,
          created_at: new Date(o.nowMs),
        })
        .where((eb) =>
          eb.or([
            eb('profile_otps.expires_at', '<=', new Date(o.nowMs)),
            eb('profile_otps.spent_at', 'is not', null),
          ]),
        ),
    )
    .returning('otp_sha256')
    .executeTakeFirst();
  return row !== undefined;
}

/** The live (unspent, unexpired) one-time passwords of a merchant among these hashes. */
export async function liveOtps(
  db: Db,
  merchantId: number,
  hashes: readonly string[],
  nowMs: number,
): Promise<{ otp_sha256: string; profile_id: number }[]> {
  return db
    .selectFrom('profile_otps')
    .select(['otp_sha256', 'profile_id'])
    .where('merchant_id', '=', merchantId)
    .where('otp_sha256', 'in', hashes)
    .where('expires_at', '>', new Date(nowMs))
    .where('spent_at', 'is', null)
    .execute();
}

/** The merchant's profile's name, address and language, its row locked for a change; undefined when unknown. */
export async function lockProfile(
  trx: Transaction<DB>,
  merchantId: number,
  profileId: number,
): Promise<{ full_name: string | null; email: string | null; language: string | null } | undefined> {
  return trx
    .selectFrom('profiles')
    .select(['full_name', 'email', 'language'])
    .where('id', '=', profileId)
    .where('merchant_id', '=', merchantId)
    .forUpdate()
    .executeTakeFirst();
}

/** Sets a profile's name and the language of its mails. */
export async function setProfileDetails(
  trx: Transaction<DB>,
  change: { merchantId: number; profileId: number; fullName: string | null; language: string | null },
): Promise<void> {
  await trx
    .updateTable('profiles')
    .set({ full_name: change.fullName, language: change.language })
    .where('id', '=', change.profileId)
    .where('merchant_id', '=', change.merchantId)
    .execute();
}

/**
 * Sets a profile's e-mail address and records who changed it, from what, when. Whoever read the old
 * address's mail may have signed in to /me with it: the profile's consumer sessions end, and its
 * sign-in links not used yet are spent (docs/decisions.md, "A customer's e-mail address corrected").
 */
export async function changeProfileEmailRow(
  trx: Transaction<DB>,
  change: {
    merchantId: number;
    profileId: number;
    portalUserId: number;
    oldEmail: string | null;
    newEmail: string | null;
    at: Date;
  },
): Promise<void> {
  await trx
    .updateTable('profiles')
    .set({ email: change.newEmail })
    .where('id', '=', change.profileId)
    .where('merchant_id', '=', change.merchantId)
    .execute();
  await trx.deleteFrom('consumer_sessions').where('profile_id', '=', change.profileId).execute();
  await trx
    .updateTable('consumer_sign_ins')
    .set({ spent_at: change.at })
    .where('profile_id', '=', change.profileId)
    .where('spent_at', 'is', null)
    .execute();
  await trx
    .insertInto('profile_email_changes')
    .values({
      merchant_id: change.merchantId,
      profile_id: change.profileId,
      portal_user_id: change.portalUserId,
      old_email: change.oldEmail,
      new_email: change.newEmail,
      at: change.at,
    })
    .execute();
}

/** A profile's e-mail changes, newest first, with who made each (at most `limit`). */
export async function profileEmailChanges(db: Db, merchantId: number, profileId: number, limit = 20) {
  return db
    .selectFrom('profile_email_changes as c')
    .innerJoin('portal_users as u', 'u.id', 'c.portal_user_id')
    .select(['c.old_email', 'c.new_email', 'c.at', 'u.email as by'])
    .where('c.merchant_id', '=', merchantId)
    .where('c.profile_id', '=', profileId)
    .orderBy('c.id', 'desc')
    .limit(limit)
    .execute();
}
