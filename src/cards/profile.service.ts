import { createHash, randomInt } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { createAccount, ensureLiabilityAccount, postMerge } from '../ledger/ledger.store.js';
import { cardCondition, cardStateName, planMerge } from '../ledger/rules/posting-rules.js';
import { moveCardLoyaltyToProfile } from '../loyalty/points.store.js';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import { registerInTransaction } from './card.service.js';
import { findCard } from './card.store.js';

/** Balance configuration of a profile, in minor units (checkout v1 "balance.config"). */
export interface BalanceConfig {
  isTopUpAllowed: boolean;
  isChargeAllowed: boolean;
  maxAmount: number | null;
  maxSingleTopUpAmount: number | null;
  minSingleTopUpAmount: number | null;
  maxMonthlyTopUpAmount: number | null;
}

export interface NewProfile {
  fullName?: string;
  email?: string;
  language?: string;
  tags?: string[];
  partnerUserId?: string;
  balanceConfig?: Partial<BalanceConfig>;
}

export interface ProfileView {
  id: number;
  serviceUserName: string;
  fullName: string | null;
  email: string | null;
  language: string | null;
  tags: { id: number; name: string }[];
  partner: { userId: string } | null;
  balance: { totalAmount: number; currency: string; config: BalanceConfig };
  tokens: { tokenId: string; tokenType: number; state: string }[];
}

export interface LinkedToken {
  tokenId: string;
  tokenType: number;
  state: string;
  profileId: number;
  balance: number;
  currency: string;
}

/** One-time passwords live five minutes (docs/decisions.md, "One-time passwords"); only their hash is stored. */
export const OTP_LIFETIME_MS = 5 * 60_000;

export function otpHash(otp: string): string {
  return createHash('sha256').update(otp, 'utf8').digest('hex');
}

export async function createProfile(
  db: Kysely<DB>,
  merchant: { id: number; currency: string },
  input: NewProfile,
): Promise<number> {
  const config = input.balanceConfig ?? {};
  const min = config.minSingleTopUpAmount ?? null;
  const maxSingle = config.maxSingleTopUpAmount ?? null;
  if (min !== null && maxSingle !== null && min > maxSingle) {
    throw new AppError('refused', 'minSingleTopUpAmount must not exceed maxSingleTopUpAmount.');
  }
  await ensureLiabilityAccount(db, merchant.id, merchant.currency);
  return db.transaction().execute(async (trx) => {
    const accountId = await createAccount(trx, merchant.id, 'profile', merchant.currency);
    const profile = await trx
      .insertInto('profiles')
      .values({
        merchant_id: merchant.id,
        full_name: input.fullName ?? null,
        email: input.email ?? null,
        language: input.language ?? null,
        partner_user_id: input.partnerUserId ?? null,
        account_id: accountId,
        is_top_up_allowed: config.isTopUpAllowed ?? true,
        is_charge_allowed: config.isChargeAllowed ?? true,
        max_amount_minor: config.maxAmount ?? null,
        max_single_top_up_minor: maxSingle,
        min_single_top_up_minor: min,
        max_monthly_top_up_minor: config.maxMonthlyTopUpAmount ?? null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    const names = [...new Set((input.tags ?? []).map((t) => t.trim()).filter((t) => t !== ''))];
    if (names.length > 0) {
      await trx
        .insertInto('tags')
        .values(names.map((name) => ({ merchant_id: merchant.id, name })))
        .onConflict((oc) => oc.columns(['merchant_id', 'name']).doNothing())
        .execute();
      const tags = await trx
        .selectFrom('tags')
        .select('id')
        .where('merchant_id', '=', merchant.id)
        .where('name', 'in', names)
        .execute();
      await trx
        .insertInto('profile_tags')
        .values(tags.map((t) => ({ merchant_id: merchant.id, profile_id: profile.id, tag_id: t.id })))
        .execute();
    }
    return profile.id;
  });
}

export async function getProfile(db: Kysely<DB>, id: number, nowMs: number): Promise<ProfileView | null> {
  const p = await db
    .selectFrom('profiles as p')
    .innerJoin('merchants as m', 'm.id', 'p.merchant_id')
    .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
    .selectAll('p')
    .select(['m.service_user_name', 'a.balance_minor', 'a.currency'])
    .where('p.id', '=', id)
    .executeTakeFirst();
  if (!p) return null;
  const tags = await db
    .selectFrom('profile_tags as pt')
    .innerJoin('tags as t', 't.id', 'pt.tag_id')
    .select(['t.id', 't.name'])
    .where('pt.profile_id', '=', id)
    .orderBy('t.id')
    .execute();
  const cards = await db
    .selectFrom('cards')
    .select(['token_id', 'token_type', 'state', 'expires_at'])
    .where('merchant_id', '=', p.merchant_id)
    .where('profile_id', '=', id)
    .orderBy('id')
    .execute();
  return {
    id: p.id,
    serviceUserName: p.service_user_name,
    fullName: p.full_name,
    email: p.email,
    language: p.language,
    tags,
    partner: p.partner_user_id === null ? null : { userId: p.partner_user_id },
    balance: {
      totalAmount: p.balance_minor,
      currency: p.currency.trim(),
      config: {
        isTopUpAllowed: p.is_top_up_allowed,
        isChargeAllowed: p.is_charge_allowed,
        maxAmount: p.max_amount_minor,
        maxSingleTopUpAmount: p.max_single_top_up_minor,
        minSingleTopUpAmount: p.min_single_top_up_minor,
        maxMonthlyTopUpAmount: p.max_monthly_top_up_minor,
      },
    },
    tokens: cards.map((c) => ({
      tokenId: c.token_id,
      tokenType: c.token_type,
      state: cardStateName(
        cardCondition(
          { state: c.state, expiresAtMs: c.expires_at === null ? null : c.expires_at.getTime() },
          nowMs,
        ),
      ),
    })),
  };
}

async function lockProfile(
  trx: Transaction<DB>,
  id: number,
): Promise<{ merchantId: number; accountId: number; currency: string }> {
  const row = await trx
    .selectFrom('profiles as p')
    .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
    .select(['p.merchant_id', 'p.account_id', 'a.currency'])
    .where('p.id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new AppError('notFound', 'No profile under this id.');
  return { merchantId: row.merchant_id, accountId: row.account_id, currency: row.currency.trim() };
}

/**
 * Links a card to a profile, registering it first when the id is new (or released). An unlinked
 * customer card's own balance moves to the profile's account in the same transaction, and the
 * card then pays from the profile's account. A gift card keeps its own balance.
 */
export async function linkToken(
  db: Kysely<DB>,
  profileId: number,
  tokenId: string,
  tokenType: 0 | 1 | null,
  nowMs: number,
): Promise<LinkedToken> {
  const head = await db
    .selectFrom('profiles as p')
    .innerJoin('ledger_accounts as a', 'a.id', 'p.account_id')
    .select(['p.merchant_id', 'a.currency'])
    .where('p.id', '=', profileId)
    .executeTakeFirst();
  if (!head) throw new AppError('notFound', 'No profile under this id.');
  await ensureLiabilityAccount(db, head.merchant_id, head.currency.trim());
  return db.transaction().execute(async (trx) => {
    const profile = await lockProfile(trx, profileId);
    const caller = { merchantId: profile.merchantId, currency: profile.currency, unitId: null };
    let card = await findCard(trx, profile.merchantId, tokenId, { forUpdate: true });
    if (!card || card.state === 'released') {
      await registerInTransaction(trx, caller, tokenId, tokenType ?? 0, null, nowMs);
      card = await findCard(trx, profile.merchantId, tokenId, { forUpdate: true });
      if (!card) throw new Error('registered card not found');
    }
    if (tokenType !== null && card.tokenType !== tokenType) {
      throw new AppError('refused', `Card "${tokenId}" is registered with tokenType ${card.tokenType}.`);
    }
    if (cardCondition(card, nowMs) !== 'usable') throw new AppError('cardLocked');
    if (card.profileId !== null && card.profileId !== profileId) {
      throw new AppError('conflict', 'The card is linked to another profile; dispose it first.');
    }
    if (card.profileId === null) {
      if (card.tokenType === 0) {
        const merge = planMerge({
          cardAccountId: card.ownAccountId,
          cardBalanceMinor: card.ownBalanceMinor,
          profileAccountId: profile.accountId,
        });
        if (merge) {
          await postMerge(trx, merge, {
            merchantId: profile.merchantId,
            transactionId: `merge:${card.cardId}:${card.ownAccountId}`,
            currency: card.currency,
            cardId: card.cardId,
            tokenId,
            trackingUnitId: null,
            nowMs,
            // Linking is an operator call (and later the consumer's own): no terminal token.
            authorisation: { by: 'operator', sha256: null },
            terminal: null,
          });
        }
        // The card pays from the profile's account from now on; its own account is done.
        await trx
          .updateTable('ledger_accounts')
          .set({ status: 'closed' })
          .where('id', '=', card.ownAccountId)
          .execute();
      }
      await trx
        .updateTable('cards')
        .set({ profile_id: profileId, updated_at: new Date(nowMs) })
        .where('id', '=', card.cardId)
        .execute();
      // Points collected on the card before it was linked belong to the profile now.
      if (card.tokenType === 0) {
        await moveCardLoyaltyToProfile(trx, profile.merchantId, card.cardId, profileId, nowMs);
      }
    }
    const linked = await findCard(trx, profile.merchantId, tokenId);
    if (!linked) throw new Error('linked card not found');
    return {
      tokenId,
      tokenType: linked.tokenType,
      state: cardStateName(cardCondition(linked, nowMs)),
      profileId,
      balance: linked.balanceMinor,
      currency: linked.currency,
    };
  });
}

/** A fresh one-time password: 8 digits, unique among the merchant's live ones. */
export async function createOtp(
  db: Kysely<DB>,
  profileId: number,
  nowMs: number,
): Promise<{ otp: string; expiresAtMs: number }> {
  const profile = await db
    .selectFrom('profiles')
    .select('merchant_id')
    .where('id', '=', profileId)
    .executeTakeFirst();
  if (!profile) throw new AppError('notFound', 'No profile under this id.');
  const expiresAtMs = nowMs + OTP_LIFETIME_MS;
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const otp = String(randomInt(0, 100_000_000)).padStart(8, '0');
    const row = await db
      .insertInto('profile_otps')
      .values({
        merchant_id: profile.merchant_id,
        otp_sha256: otpHash(otp),
        profile_id: profileId,
        expires_at: new Date(expiresAtMs),
        spent_at: null,
        created_at: new Date(nowMs),
      })
      // A dead password of the same value may be reused; a live one may not.
      .onConflict((oc) =>
        oc
          .columns(['merchant_id', 'otp_sha256'])
          .doUpdateSet({
            profile_id: profileId,
            expires_at: new Date(expiresAtMs),
            spent_at: null,
            created_at: new Date(nowMs),
          })
          .where((eb) =>
            eb.or([
              eb('profile_otps.expires_at', '<=', new Date(nowMs)),
              eb('profile_otps.spent_at', 'is not', null),
            ]),
          ),
      )
      .returning('otp_sha256')
      .executeTakeFirst();
    if (row) return { otp, expiresAtMs };
  }
  throw new AppError('unavailable', 'No free one-time password; retry.');
}
