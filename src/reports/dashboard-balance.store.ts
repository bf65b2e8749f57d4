import { type Kysely, sql } from 'kysely';
import { findLiabilityAccount } from '../ledger/ledger.store.js';
import { addDays } from '../shared/time.js';
import type { DB } from '../store/schema.js';
import { type DashboardPeriod, bounds, dayNumber, dayText } from './dashboard-period.store.js';

/**
 * The customers' stored balance on the dashboard (docs/decisions.md, "The customers' stored
 * balance on the dashboard"): what the cards and profiles of the merchant held at the period's
 * start and end, money the business owes them, and what moved it in between. The moves are the
 * ledger's transfers with the merchant's liability account, the other side of every booking that
 * puts money on a customer's balance or takes it off (a merge between two customers' accounts has
 * none and changes no total), found by the account and the time (migration 0067). What is held at
 * the end is what the ledger keeps on the merchant's cards and profiles now, less what moved since;
 * both read in one statement, so from one snapshot.
 */

export interface StoredBalanceMoves {
  /** Loaded at the tills (POS top-ups). */
  tillLoadedMinor: number;
  /** Taken off at the tills: paid with the balance, or paid out (POS withdrawals), as a positive amount. */
  tillPaidMinor: number;
  /** Topped up through the checkout interface (apps, kiosks, web shops). */
  topUpsMinor: number;
  /** Charged for checkout orders paid from the balance, as a positive amount. */
  ordersChargedMinor: number;
  /** Given back by refunds of such orders. */
  ordersRefundedMinor: number;
  /** Corrections in the portal and by the operator, signed (+ credited, − debited). */
  correctionsMinor: number;
}

/** What was held at the start and the end of a time, and what moved it. */
export interface StoredBalanceSpan extends StoredBalanceMoves {
  /** Held by the customers at its first instant. */
  openingMinor: number;
  /** Held at its end: the opening and every move. */
  closingMinor: number;
}

export interface StoredBalance extends StoredBalanceSpan {
  /** Each day of the period, oldest first (the last ends with the period). */
  days: (StoredBalanceSpan & { day: string })[];
  /**
   * Held now, whatever the period: on customers' profiles (the balances of the customer list and
   * its CSV) and on cards without a customer (gift cards, customer cards not linked); a linked card
   * pays from its customer's profile.
   */
  heldNow: { profilesMinor: number; cardsMinor: number };
}

type Row = { bucket: string; day: number | null; signed: string | number };

/**
 * What the merchant's profiles and cards hold now (`bucket` 'held:profile', 'held:card'), what
 * moved their balances since the period's end ('after'), and in the period by local day and kind
 * of move. Signed as the customers' side sees it: + put on a balance, − taken off.
 */
async function moves(
  db: Kysely<DB>,
  p: DashboardPeriod,
  currency: string,
  liabilityId: number,
): Promise<Row[]> {
  const { start, end } = bounds(p);
  const { rows } = await sql<Row>`
    WITH moved AS (
      SELECT t.created_at, t.tracking_unit_id, t.kind, t.authorised_by, t.amount_minor AS signed
        FROM ledger_transfers t
       WHERE t.debit_account_id = ${liabilityId} AND t.created_at >= ${start}
      UNION ALL
      SELECT t.created_at, t.tracking_unit_id, t.kind, t.authorised_by, -t.amount_minor
        FROM ledger_transfers t
       WHERE t.credit_account_id = ${liabilityId} AND t.created_at >= ${start})
    SELECT 'held:' || a.kind AS bucket, NULL::int AS day, sum(a.balance_minor) AS signed
      FROM ledger_accounts a
     WHERE a.merchant_id = ${p.merchantId} AND a.kind <> 'liability' AND a.currency = ${currency}
     GROUP BY a.kind
    UNION ALL
    SELECT CASE WHEN created_at >= ${end} THEN 'after'
                WHEN tracking_unit_id IS NOT NULL AND signed > 0 THEN 'tillLoaded'
                WHEN tracking_unit_id IS NOT NULL THEN 'tillPaid'
                WHEN kind = 'charge' THEN 'ordersCharged'
                WHEN kind = 'refund' THEN 'ordersRefunded'
                WHEN kind = 'top_up' AND authorised_by = 'checkout' THEN 'topUps'
                ELSE 'corrections' END,
           CASE WHEN created_at >= ${end} THEN NULL ELSE ${dayNumber('created_at', p)} END,
           sum(signed)
      FROM moved
     GROUP BY 1, 2`.execute(db);
  return rows;
}

const BUCKET_FIELD = {
  tillLoaded: 'tillLoadedMinor',
  tillPaid: 'tillPaidMinor',
  topUps: 'topUpsMinor',
  ordersCharged: 'ordersChargedMinor',
  ordersRefunded: 'ordersRefundedMinor',
  corrections: 'correctionsMinor',
} as const satisfies Record<string, keyof StoredBalanceMoves>;

function noMoves(): StoredBalanceMoves {
  return {
    tillLoadedMinor: 0,
    tillPaidMinor: 0,
    topUpsMinor: 0,
    ordersChargedMinor: 0,
    ordersRefundedMinor: 0,
    correctionsMinor: 0,
  };
}

/** Moves taken off a balance, shown as positive amounts. */
const TAKEN_OFF = new Set<string>(['tillPaid', 'ordersCharged']);

/**
 * The customers' stored balance over the period in the merchant's currency; null for a merchant
 * whose customers never held money in it (no liability account in that currency).
 */
export async function storedBalance(
  db: Kysely<DB>,
  p: DashboardPeriod,
  currency: string,
): Promise<StoredBalance | null> {
  const liability = await findLiabilityAccount(db, p.merchantId, currency);
  if (liability === null) return null;
  const rows = await moves(db, p, currency, liability);
  const figures: StoredBalance = {
    ...noMoves(),
    openingMinor: 0,
    closingMinor: 0,
    days: [],
    heldNow: { profilesMinor: 0, cardsMinor: 0 },
  };
  const byDay = new Map<string, StoredBalanceMoves & { net: number }>();
  let after = 0;
  let net = 0;
  for (const r of rows) {
    const signed = Number(r.signed);
    if (r.bucket === 'held:profile') figures.heldNow.profilesMinor = signed;
    else if (r.bucket === 'held:card') figures.heldNow.cardsMinor = signed;
    else if (r.bucket === 'after') after += signed;
    else {
      const field = BUCKET_FIELD[r.bucket as keyof typeof BUCKET_FIELD];
      const shown = TAKEN_OFF.has(r.bucket) ? -signed : signed;
      const key = dayText(Number(r.day));
      const day = byDay.get(key) ?? { ...noMoves(), net: 0 };
      day[field] += shown;
      day.net += signed;
      byDay.set(key, day);
      figures[field] += shown;
      net += signed;
    }
  }
  figures.closingMinor = figures.heldNow.profilesMinor + figures.heldNow.cardsMinor - after;
  figures.openingMinor = figures.closingMinor - net;
  let held = figures.openingMinor;
  for (let day = p.from; day <= p.to; day = addDays(day, 1)) {
    const { net: dayNet, ...moved } = byDay.get(day) ?? { ...noMoves(), net: 0 };
    figures.days.push({ day, openingMinor: held, ...moved, closingMinor: held + dayNet });
    held += dayNet;
  }
  return figures;
}
