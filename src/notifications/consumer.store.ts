import type { Kysely } from 'kysely';
import type { Language } from '../receipts/receipt-text.js';
import type { DB } from '../store/schema.js';
import type { PushTarget } from './push.js';

/** The consumer's notification switches and push subscriptions (migration 0013). */
export interface Preferences {
  readonly mail: boolean;
  readonly push: boolean;
}

export async function preferencesOf(db: Kysely<DB>, profileId: number): Promise<Preferences> {
  const row = await db
    .selectFrom('consumer_preferences')
    .select(['mail_enabled', 'push_enabled'])
    .where('profile_id', '=', profileId)
    .executeTakeFirst();
  return { mail: row?.mail_enabled ?? true, push: row?.push_enabled ?? true };
}

/**
 * The consumer's switches and, when they chose one, the language of their receipts, mails and page
 * (the profile's), together.
 */
export async function setPreferences(
  db: Kysely<DB>,
  merchantId: number,
  profileId: number,
  prefs: Preferences,
  now: Date,
  language: Language | null,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('consumer_preferences')
      .values({
        merchant_id: merchantId,
        profile_id: profileId,
        mail_enabled: prefs.mail,
        push_enabled: prefs.push,
        updated_at: now,
      })
      .onConflict((oc) =>
        oc
          .column('profile_id')
          .doUpdateSet({ mail_enabled: prefs.mail, push_enabled: prefs.push, updated_at: now }),
      )
      .execute();
    if (language === null) return;
    await trx
      .updateTable('profiles')
      .set({ language })
      .where('id', '=', profileId)
      .where('merchant_id', '=', merchantId)
      .execute();
  });
}

export async function addPushSubscription(
  db: Kysely<DB>,
  merchantId: number,
  profileId: number,
  target: PushTarget,
  now: Date,
): Promise<void> {
  await db
    .insertInto('push_subscriptions')
    .values({ merchant_id: merchantId, profile_id: profileId, ...target, created_at: now })
    .onConflict((oc) =>
      oc.columns(['profile_id', 'endpoint']).doUpdateSet({ p256dh: target.p256dh, auth: target.auth }),
    )
    .execute();
}

export async function pushSubscriptionsOf(
  db: Kysely<DB>,
  profileId: number,
): Promise<(PushTarget & { id: number })[]> {
  return db
    .selectFrom('push_subscriptions')
    .select(['id', 'endpoint', 'p256dh', 'auth'])
    .where('profile_id', '=', profileId)
    .orderBy('id')
    .execute();
}

export async function removePushSubscription(db: Kysely<DB>, id: number): Promise<void> {
  await db.deleteFrom('push_subscriptions').where('id', '=', id).execute();
}

export interface NotifiedProfile {
  readonly merchantId: number;
  readonly email: string | null;
  readonly fullName: string | null;
  readonly language: string | null;
}

export async function notifiedProfile(
  db: Kysely<DB>,
  profileId: number,
): Promise<NotifiedProfile | undefined> {
  const row = await db
    .selectFrom('profiles')
    .select(['merchant_id', 'email', 'full_name', 'language'])
    .where('id', '=', profileId)
    .executeTakeFirst();
  return (
    row && { merchantId: row.merchant_id, email: row.email, fullName: row.full_name, language: row.language }
  );
}

/** The merchant's name and currency as its consumers' mails show them. */
export async function mailingMerchant(
  db: Kysely<DB>,
  merchantId: number,
): Promise<{ name: string; currency: string } | undefined> {
  const row = await db
    .selectFrom('merchants')
    .select(['display_name', 'currency'])
    .where('id', '=', merchantId)
    .executeTakeFirst();
  return row && { name: row.display_name, currency: row.currency };
}
