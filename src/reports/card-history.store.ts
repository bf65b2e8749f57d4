import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';

/** A card's balance bookings, points movements and unlocks, newest first, as of `nowMs`. */
export async function cardHistoryAt(
  db: Kysely<DB>,
  merchantId: number,
  card: { cardId: number; tokenId: string; profileId: number | null },
  nowMs: number,
) {
  const transfers = await db
    .selectFrom('ledger_transfers')
    .select(['transaction_id', 'kind', 'amount_minor', 'balance_after_minor', 'created_at'])
    .where('merchant_id', '=', merchantId)
    .where('token_id', '=', card.tokenId)
    .orderBy('id', 'desc')
    .limit(100)
    .execute();
  const profileId = card.profileId;
  const movements = await db
    .selectFrom('points_movements')
    .select(['kind', 'points', 'basket_id', 'created_at'])
    .where('merchant_id', '=', merchantId)
    .where((eb) =>
      profileId === null
        ? eb('card_id', '=', card.cardId)
        : eb.or([eb('card_id', '=', card.cardId), eb('profile_id', '=', profileId)]),
    )
    .where('kind', '<>', 'opening')
    .orderBy('id', 'desc')
    .limit(100)
    .execute();
  const held = await db
    .selectFrom('points_lots')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<string>('remaining'), eb.val('0')).as('points'))
    .where('merchant_id', '=', merchantId)
    .where((eb) =>
      profileId === null
        ? eb('card_id', '=', card.cardId)
        : eb.or([eb('card_id', '=', card.cardId), eb('profile_id', '=', profileId)]),
    )
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', new Date(nowMs))]))
    .executeTakeFirstOrThrow();
  const unlocks = await db
    .selectFrom('card_unlocks as u')
    .innerJoin('portal_users as p', 'p.id', 'u.user_id')
    .select(['p.email', 'u.unlocked_at'])
    .where('u.merchant_id', '=', merchantId)
    .where('u.card_id', '=', card.cardId)
    .orderBy('u.id', 'desc')
    .limit(100)
    .execute();
  return {
    points: Number(held.points),
    transfers: transfers.map((t) => ({
      transactionId: t.transaction_id,
      kind: t.kind,
      amountMinor: Number(t.amount_minor),
      balanceAfterMinor: Number(t.balance_after_minor),
      createdAt: t.created_at.toISOString(),
    })),
    pointsHistory: movements.map((m) => ({
      kind: m.kind,
      points: Number(m.points),
      basketId: m.basket_id,
      createdAt: m.created_at.toISOString(),
    })),
    unlocks: unlocks.map((u) => ({ by: u.email, at: u.unlocked_at.toISOString() })),
  };
}
