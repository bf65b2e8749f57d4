import { type Kysely, type Transaction, sql } from 'kysely';
import type { CardState, DB } from '../store/schema.js';

type Db = Kysely<DB> | Transaction<DB>;

/** A card with the account it pays from: the profile's for a linked customer card, else its own. */
export interface CardView {
  readonly cardId: number;
  readonly tokenId: string;
  readonly tokenType: 0 | 1;
  readonly state: CardState;
  readonly expiresAtMs: number | null;
  readonly profileId: number | null;
  readonly ownAccountId: number;
  readonly ownBalanceMinor: number;
  readonly accountId: number;
  readonly balanceMinor: number;
  readonly accountOpen: boolean;
  readonly currency: string;
  /** maxAmount of the profile when the card pays from a profile account. */
  readonly maxBalanceMinor: number | null;
  readonly liabilityAccountId: number;
}

interface CardRow {
  card_id: number;
  token_id: string;
  token_type: number;
  state: CardState;
  expires_at: Date | null;
  profile_id: number | null;
  own_account_id: number;
  own_balance: number;
  account_id: number;
  balance_minor: number;
  status: string;
  currency: string;
  max_amount_minor: number | null;
  liability_id: number;
}

function toView(r: CardRow): CardView {
  return {
    cardId: r.card_id,
    tokenId: r.token_id,
    tokenType: r.token_type === 1 ? 1 : 0,
    state: r.state,
    expiresAtMs: r.expires_at === null ? null : r.expires_at.getTime(),
    profileId: r.profile_id,
    ownAccountId: r.own_account_id,
    ownBalanceMinor: r.own_balance,
    accountId: r.account_id,
    balanceMinor: r.balance_minor,
    accountOpen: r.status === 'open',
    currency: r.currency.trim(),
    maxBalanceMinor: r.max_amount_minor,
    liabilityAccountId: r.liability_id,
  };
}

/**
 * Cards of one merchant by their ids, in one query. Another merchant's card is simply not
 * found: the tenant key is part of every lookup.
 */
export async function findCards(
  db: Db,
  merchantId: number,
  tokenIds: readonly string[],
  options: { forUpdate?: boolean } = {},
): Promise<CardView[]> {
  if (tokenIds.length === 0) return [];
  const lock = options.forUpdate ? sql`FOR UPDATE OF c, own` : sql``;
  const result = await sql<CardRow>`
    SELECT c.id AS card_id, c.token_id, c.token_type, c.state, c.expires_at, c.profile_id,
           c.account_id AS own_account_id, own.balance_minor AS own_balance,
           a.id AS account_id, a.balance_minor, a.status, a.currency,
           p.max_amount_minor, l.id AS liability_id
      FROM cards c
      JOIN ledger_accounts own ON own.id = c.account_id
      LEFT JOIN profiles p ON p.id = c.profile_id AND c.token_type = 0
      JOIN ledger_accounts a ON a.id = COALESCE(p.account_id, c.account_id)
      JOIN ledger_accounts l ON l.merchant_id = c.merchant_id AND l.kind = 'liability' AND l.currency = a.currency
     WHERE c.merchant_id = ${merchantId} AND c.token_id IN (${sql.join(tokenIds)})
     ${lock}`.execute(db);
  return result.rows.map(toView);
}

export async function findCard(
  db: Db,
  merchantId: number,
  tokenId: string,
  options: { forUpdate?: boolean } = {},
): Promise<CardView | null> {
  const [card] = await findCards(db, merchantId, [tokenId], options);
  return card ?? null;
}

/** The id and state of a card id, locked for its registration; undefined when it was never registered. */
export async function lockCardId(
  trx: Transaction<DB>,
  merchantId: number,
  tokenId: string,
): Promise<{ id: number; state: CardState } | undefined> {
  return trx
    .selectFrom('cards')
    .select(['id', 'state'])
    .where('merchant_id', '=', merchantId)
    .where('token_id', '=', tokenId)
    .forUpdate()
    .executeTakeFirst();
}

export interface CardRegistration {
  readonly merchantId: number;
  readonly tokenId: string;
  readonly tokenType: 0 | 1;
  readonly expiresAtMs: number | null;
  readonly accountId: number;
  readonly nowMs: number;
}

/** The columns of a card as registered: fresh state, no profile, its new account. */
function registered(r: CardRegistration) {
  const now = new Date(r.nowMs);
  return {
    token_type: r.tokenType,
    state: 'registered' as const,
    expires_at: r.expiresAtMs === null ? null : new Date(r.expiresAtMs),
    profile_id: null,
    account_id: r.accountId,
    registered_at: now,
    updated_at: now,
  };
}

/** A released card id registered anew: fresh state, no profile, its new account. */
export async function reRegisterCard(
  trx: Transaction<DB>,
  cardId: number,
  r: CardRegistration,
): Promise<void> {
  await trx.updateTable('cards').set(registered(r)).where('id', '=', cardId).execute();
}

/** A new card; false when a concurrent registration of the same id won. */
export async function insertCard(trx: Transaction<DB>, r: CardRegistration): Promise<boolean> {
  const inserted = await trx
    .insertInto('cards')
    .values({ merchant_id: r.merchantId, token_id: r.tokenId, ...registered(r) })
    .onConflict((oc) => oc.columns(['merchant_id', 'token_id']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** A card's state changed (lock, unlock); release also detaches it from its profile. */
export async function setCardState(
  trx: Transaction<DB>,
  cardId: number,
  state: 'registered' | 'locked' | 'released',
  nowMs: number,
): Promise<void> {
  await trx
    .updateTable('cards')
    .set(
      state === 'released'
        ? { state, profile_id: null, updated_at: new Date(nowMs) }
        : { state, updated_at: new Date(nowMs) },
    )
    .where('id', '=', cardId)
    .execute();
}

/** The card pays from the profile's account from now on. */
export async function linkCardToProfile(
  trx: Transaction<DB>,
  cardId: number,
  profileId: number,
  nowMs: number,
): Promise<void> {
  await trx
    .updateTable('cards')
    .set({ profile_id: profileId, updated_at: new Date(nowMs) })
    .where('id', '=', cardId)
    .execute();
}

/** Who locked or unlocked a card: a portal user, or the till that locked it through the POS interface. */
export interface LockActor {
  readonly portalUserId: number | null;
  readonly trackingUnitId: string | null;
  readonly reason?: string | null;
}

/** One lock or unlock in the card's history (migration 0023), in the transaction that changed the card. */
export async function recordLockEvent(
  trx: Transaction<DB>,
  merchantId: number,
  cardId: number,
  action: 'lock' | 'unlock',
  by: LockActor,
  nowMs: number,
): Promise<void> {
  const reason = by.reason?.trim() || null;
  await trx
    .insertInto('card_lock_events')
    .values({
      merchant_id: merchantId,
      card_id: cardId,
      action,
      portal_user_id: by.portalUserId,
      tracking_unit_id: by.portalUserId === null ? by.trackingUnitId : null,
      reason,
      at: new Date(nowMs),
    })
    .execute();
}
