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
