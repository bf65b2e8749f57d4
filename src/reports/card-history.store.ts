import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';

/**
 * A card's balance bookings, points movements, locks and unlocks and the one-time passwords issued
 * for its consumer in the portal, newest first, as of `nowMs`.
 */
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
  const movements = await pointsMovements(db, merchantId, card, { limit: 100, beforeId: null });
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
  const locks = await db
    .selectFrom('card_lock_events as e')
    .leftJoin('portal_users as p', 'p.id', 'e.portal_user_id')
    .select(['e.action', 'p.email', 'e.tracking_unit_id', 'e.reason', 'e.at'])
    .where('e.merchant_id', '=', merchantId)
    .where('e.card_id', '=', card.cardId)
    .orderBy('e.id', 'desc')
    .limit(100)
    .execute();
  const otps = await db
    .selectFrom('card_otp_issues as o')
    .innerJoin('portal_users as p', 'p.id', 'o.portal_user_id')
    .select(['p.email', 'o.issued_at', 'o.expires_at'])
    .where('o.merchant_id', '=', merchantId)
    .where('o.card_id', '=', card.cardId)
    .orderBy('o.id', 'desc')
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
    pointsHistory: movements.map(({ id: _id, ...m }) => m),
    locks: locks.map((l) => ({
      action: l.action,
      by: l.email ?? null,
      trackingUnitId: l.tracking_unit_id,
      reason: l.reason,
      at: l.at.toISOString(),
    })),
    otps: otps.map((o) => ({
      by: o.email,
      issuedAt: o.issued_at.toISOString(),
      expiresAt: o.expires_at.toISOString(),
    })),
  };
}

/** A points movement of a card's history, with its row's id, the key its list is paged by. */
export interface PointsMovement {
  id: number;
  kind: string;
  points: number;
  basketId: string | null;
  /** The till of the basket. */
  trackingUnitId: string | null;
  /** For a move: the card whose points moved to its customer when it was linked. */
  linkedCard: string | null;
  createdAt: string;
}

/**
 * Whose points movements a history lists: a card's (and, when it is linked, its customer's), or a
 * customer's (and those of the cards they hold, as `pointsHeld` counts their points).
 */
export type PointsOwner = { cardId: number; profileId: number | null } | { customerId: number };

/** The ids of the cards a customer holds (not released): the owners of their history beside them. */
async function heldCards(db: Kysely<DB>, merchantId: number, customerId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('cards')
    .select('id')
    .where('merchant_id', '=', merchantId)
    .where('profile_id', '=', customerId)
    .where('state', '<>', 'released')
    .execute();
  return rows.map((r) => Number(r.id));
}

/** The tokens of the merchant's cards with the ids given (none read when none is given). */
async function cardTokens(db: Kysely<DB>, merchantId: number, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('cards')
    .select(['id', 'token_id'])
    .where('merchant_id', '=', merchantId)
    .where('id', 'in', [...new Set(ids)])
    .execute();
  return new Map(rows.map((c) => [Number(c.id), c.token_id]));
}

/**
 * The points movements of a card or a customer (`PointsOwner`), newest first, a page at a time:
 * those before the movement `beforeId` (from the newest when null), booked from `fromMs`
 * (inclusive) to `toMs` (exclusive) when given, at most `limit`. A movement is what one booking
 * did of one kind (an earn or a redemption of a basket, a return's take-back or give-back, a card's
 * move): the rows of its lots summed, its id their newest row's.
 */
export async function pointsMovements(
  db: Kysely<DB>,
  merchantId: number,
  owner: PointsOwner,
  page: { limit: number; beforeId: number | null; fromMs?: number; toMs?: number },
): Promise<PointsMovement[]> {
  const beforeId = page.beforeId;
  // The owners' ids as values, so that each is found by its index (points_movements_card and
  // _profile, migration 0068) rather than among every movement of the merchant.
  const cards = 'customerId' in owner ? await heldCards(db, merchantId, owner.customerId) : [owner.cardId];
  const profileId = 'customerId' in owner ? owner.customerId : owner.profileId;
  // A move between two owners of the history (a card and its customer) changes its sum by
  // nothing: the cards whose moves stay inside it.
  const inside = 'customerId' in owner ? cards : owner.profileId === null ? [] : [owner.cardId];
  const rows = await db
    .selectFrom('points_movements')
    .select((eb) => [
      eb.fn.max('id').as('id'),
      'kind',
      eb.fn.sum<string>('points').as('points'),
      'basket_id',
      'tracking_unit_id',
      'link_card_id',
      'created_at',
    ])
    .where('merchant_id', '=', merchantId)
    .where((eb) =>
      eb.or([
        ...(cards.length > 0 ? [eb('card_id', 'in', cards)] : []),
        ...(profileId !== null ? [eb('profile_id', '=', profileId)] : []),
      ]),
    )
    // A move inside the history and a used-up lot's move of 0 points say nothing: both left out.
    .where((eb) => {
      const moved = eb('kind', 'in', ['move_out', 'move_in']);
      const within = inside.length > 0 ? [eb('link_card_id', 'in', inside)] : [];
      return eb.not(eb.and([moved, eb.or([eb('points', '=', 0), ...within])]));
    })
    .where('kind', '<>', 'opening')
    .$if(page.fromMs !== undefined, (q) => q.where('created_at', '>=', new Date(page.fromMs ?? 0)))
    .$if(page.toMs !== undefined, (q) => q.where('created_at', '<', new Date(page.toMs ?? 0)))
    // One booking's rows (a lot each) as one movement: a redemption over four lots is one line.
    .groupBy(['kind', 'basket_id', 'tracking_unit_id', 'return_id', 'link_card_id', 'created_at'])
    .$if(beforeId !== null, (q) => q.having((eb) => eb.fn.max('id'), '<', beforeId ?? 0))
    .orderBy((eb) => eb.fn.max('id'), 'desc')
    .limit(page.limit)
    .execute();
  const tokens = await cardTokens(
    db,
    merchantId,
    rows.flatMap((m) => (m.link_card_id === null ? [] : [Number(m.link_card_id)])),
  );
  return rows.map((m) => ({
    id: Number(m.id),
    kind: m.kind,
    points: Number(m.points),
    basketId: m.basket_id,
    trackingUnitId: m.tracking_unit_id,
    linkedCard: m.link_card_id === null ? null : (tokens.get(Number(m.link_card_id)) ?? null),
    createdAt: m.created_at.toISOString(),
  }));
}
