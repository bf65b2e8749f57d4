import { type Expression, type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import type { ReceiptKind } from '../store/tables/outbox.js';
import { PURCHASE_NOTIFICATION, type PurchaseNotification } from './purchase-notification.js';
import { posBasketOfSourceRef, posBasketSourceRefOf } from '../receipts/receipt.store.js';

/**
 * Queues a purchase notification in the caller's transaction, due at `nowMs`: the one writer of
 * the message, `queue_purchase_notification` (src/notifications/sql/), which the grant and the
 * order call in their statements. Answers whether one was queued (none for a consumer with
 * nowhere to send it).
 */
export async function queueNotification(
  trx: Kysely<DB>,
  merchantId: number,
  payload: PurchaseNotification,
  nowMs: number,
): Promise<boolean> {
  const { rows } = await sql<{ queued: boolean }>`SELECT queue_purchase_notification(${merchantId},
    ${payload.receiptId}, ${payload.profileId}, ${payload.event}, ${new Date(nowMs)}) AS queued`.execute(trx);
  return rows[0]?.queued === true;
}

/** What an attempt of a consumer's message did with its mail (src/notifications/mail-and-push.ts). */
export const MAIL_OUTCOMES = ['sent', 'failed', 'refused', 'no_address', 'switched_off'] as const;
export type MailOutcome = (typeof MAIL_OUTCOMES)[number];

/**
 * What became of a receipt's mail, as the basket search filters it and the basket's page words it
 * (docs/decisions.md, "What became of the receipt mail"): sent (delivered to the mail server);
 * not_sent (the profile has no e-mail address, or the consumer switched mail off); pending (not
 * tried yet, or tried again later); refused (for good, by the consumer's mail server); given_up
 * (every try failed).
 */
export type ReceiptMailKind = 'sent' | 'not_sent' | 'pending' | 'refused' | 'given_up';

/** What became of the notification of a receipt's purchase (its grant or its order). */
export interface ReceiptNotificationState {
  readonly kind: ReceiptMailKind;
  readonly status: 'pending' | 'delivered' | 'dead';
  readonly attempts: number;
  /** What the last attempt did with the mail: sent, failed, refused, no_address, switched_off. */
  readonly mail: MailOutcome | null;
  readonly lastError: string | null;
  readonly deliveredAt: Date | null;
  readonly nextAttemptAt: Date | null;
}

/** A consumer message's row as `latestMail` reads it: the message, its last attempt's mail, its kind. */
interface MailRow {
  status: string;
  attempts: number;
  last_error: string | null;
  delivered_at: Date | null;
  next_attempt_at: Date | null;
  mail: string | null;
  kind: ReceiptMailKind;
}

/**
 * The latest consumer message (of `outbox_messages m`) that `which` picks, with what its last
 * attempt did with the mail and its kind: the one home of the rule that words a message's mail as
 * the basket's page, the basket search and the customer's page read it. The order is by `m.id + 0`,
 * so that the planner cannot walk the merchant's messages newest first instead and stop at the one
 * picked, which reads them all for an old message (and which the embedded database, without
 * statistics, chose); `which` names the message by an indexed key.
 */
export function latestMail(which: Expression<boolean>) {
  return sql<MailRow>`SELECT m.status, m.attempts, m.last_error, m.delivered_at, m.next_attempt_at, a.mail,
      CASE WHEN m.status = 'pending' THEN 'pending'
           WHEN m.status = 'dead' AND a.mail = 'refused' THEN 'refused'
           WHEN m.status = 'dead' THEN 'given_up'
           WHEN a.mail IN ('no_address', 'switched_off') THEN 'not_sent'
           ELSE 'sent' END AS kind
    FROM outbox_messages m
    LEFT JOIN LATERAL (SELECT x.detail->>'mail' AS mail FROM outbox_attempts x
                        WHERE x.message_id = m.id ORDER BY x.attempt DESC LIMIT 1) a ON true
   WHERE ${which}
   ORDER BY m.id + 0 DESC LIMIT 1`;
}

/** A row of `latestMail` as its state; null when no message was picked. */
export function mailStateOf(row: MailRow | undefined): ReceiptNotificationState | null {
  if (!row) return null;
  return {
    kind: row.kind,
    status: row.status as ReceiptNotificationState['status'],
    attempts: row.attempts,
    mail: MAIL_OUTCOMES.find((o) => o === row.mail) ?? null,
    lastError: row.last_error,
    deliveredAt: row.delivered_at === null ? null : new Date(row.delivered_at),
    nextAttemptAt:
      row.status === 'pending' && row.next_attempt_at !== null ? new Date(row.next_attempt_at) : null,
  };
}

/**
 * The latest purchase notification (of a grant or an order) of the receipt `receiptId` of the
 * merchant `merchantId`, found by the receipt's id (migration 0058).
 */
function latestNotification(merchantId: Expression<unknown>, receiptId: Expression<unknown>) {
  return latestMail(sql<boolean>`m.merchant_id = ${merchantId} AND m.topic = ${PURCHASE_NOTIFICATION}
     AND m.payload->>'receiptId' = ${receiptId} AND m.payload->>'event' IN ('grant', 'order')`);
}

/**
 * The purchase notification of a receipt (docs/decisions.md, "What became of the receipt mail"):
 * the latest one of its grant or order, with what its last attempt did with the mail; null when
 * none was written (no profile, a gift card, a profile with neither an e-mail address nor push).
 */
export async function receiptNotificationState(
  db: Kysely<DB>,
  merchantId: number,
  receiptId: string,
): Promise<ReceiptNotificationState | null> {
  const { rows } = await latestNotification(sql.val(merchantId), sql.val(receiptId)).execute(db);
  return mailStateOf(rows[0]);
}

/**
 * What the basket search filters by: every kind but not_sent, whose baskets nothing but reading
 * every delivered notification would find (docs/decisions.md, "What became of the receipt mail").
 */
export const RECEIPT_MAIL_FILTERS = ['sent', 'pending', 'refused', 'given_up'] as const;
export type ReceiptMailFilter = (typeof RECEIPT_MAIL_FILTERS)[number];

/**
 * The condition "the latest purchase notification of the receipt of basket `b` (an alias of
 * `baskets`) of the merchant `merchantId` is of this kind", for the basket search; the kind as
 * `receiptNotificationState` reads it. A sent mail is most baskets' lot, so the baskets are read
 * newest first and each one's notification looked up until the page is full. The others are few:
 * they are found from the notifications not delivered (migration 0059) and matched to the
 * baskets by their receipts' source keys.
 */
export function basketReceiptMailIs(b: string, merchantId: number, kind: ReceiptMailFilter) {
  if (kind === 'sent') return basketReceiptMailIn(b, [kind]);
  return sql<boolean>`${posBasketSourceRefOf(b)} IN (${undeliveredSourceRefs(merchantId, 'pos_basket', kind)})`;
}

/**
 * The merchant's receipts of one kind (a POS basket's, a checkout order's) with a purchase
 * notification not delivered (migration 0059), one row for each such notification: the FROM and
 * WHERE of a query, the receipt as `r`. The one home of how the searches' filters and the
 * dashboard's counts find the few receipts whose mail did not arrive without reading the rest.
 */
function receiptsNotDelivered(merchantId: number, receiptKind: ReceiptKind) {
  return sql`outbox_messages m
      JOIN receipts r ON r.id = m.payload->>'receiptId' AND r.merchant_id = m.merchant_id
                     AND r.kind = ${receiptKind}
     WHERE m.merchant_id = ${merchantId} AND m.topic = ${PURCHASE_NOTIFICATION} AND m.status <> 'delivered'`;
}

/**
 * The source keys of the merchant's receipts of one kind whose latest purchase notification is of
 * the kind `kind` (not `sent`: a sent mail is delivered), for the searches' filters. The kind is a
 * scalar subquery in the condition: PostgreSQL plans that as a hashed subplan.
 */
function undeliveredSourceRefs(merchantId: number, receiptKind: ReceiptKind, kind: ReceiptMailFilter) {
  const latest = latestNotification(sql.ref('r.merchant_id'), sql.ref('r.id'));
  return sql<{ source_ref: string }>`SELECT r.source_ref FROM ${receiptsNotDelivered(merchantId, receiptKind)}
         AND (SELECT n.kind FROM (${latest}) n) = ${kind}`;
}

/**
 * The merchant's receipts of one kind (a POS basket's, a checkout order's) whose receipt mail was
 * refused or given up, by their source keys, with the kind: found from the notifications not
 * delivered (migration 0059), each receipt once, the kind of its latest notification. (The
 * searches' filters keep the kind a scalar subquery in their condition: PostgreSQL plans that as a
 * hashed subplan, 5 times faster for a page than this form.)
 */
function undeliveredReceiptsOf(merchantId: number, receiptKind: ReceiptKind) {
  const latest = latestNotification(sql.ref('u.merchant_id'), sql.ref('u.id'));
  return sql<{ source_ref: string; kind: 'refused' | 'given_up' }>`
    SELECT u.source_ref, n.kind
      FROM (SELECT DISTINCT r.id, r.merchant_id, r.source_ref FROM ${receiptsNotDelivered(merchantId, receiptKind)}) u
      CROSS JOIN LATERAL (${latest}) n
     WHERE n.kind IN ('refused', 'given_up')`;
}

/**
 * The merchant's POS baskets whose receipt mail was refused or given up, by their keys, with the
 * kind, for the dashboard's count: the baskets found by key, not by reading them
 * (`posBasketOfSourceRef`).
 */
export function undeliveredReceiptBaskets(merchantId: number) {
  const key = posBasketOfSourceRef(sql<string>`x.source_ref`);
  return sql<{ tracking_unit_id: string; basket_id: string; kind: 'refused' | 'given_up' }>`
    SELECT ${key.trackingUnitId} AS tracking_unit_id, ${key.basketId} AS basket_id, x.kind
      FROM (${undeliveredReceiptsOf(merchantId, 'pos_basket')}) x`;
}

/**
 * The merchant's checkout orders whose receipt mail was refused or given up, by their ids (an
 * order's receipt's source key), with the kind, for the dashboard's count.
 */
export function undeliveredReceiptOrders(merchantId: number) {
  return sql<{ order_id: string; kind: 'refused' | 'given_up' }>`
    SELECT x.source_ref AS order_id, x.kind FROM (${undeliveredReceiptsOf(merchantId, 'checkout_order')}) x`;
}

/**
 * The receipt of the merchant's POS basket and the basket's customer profile, the receipt's row
 * locked so that two requests to send it again queue one message; undefined when the basket is
 * unknown, `receiptId` null before its grant.
 */
export async function lockBasketReceipt(
  trx: Kysely<DB>,
  merchantId: number,
  trackingUnitId: string,
  basketId: string,
): Promise<{ receiptId: string | null; profileId: number | null } | undefined> {
  const { rows } = await sql<{ receipt_id: string | null; profile_id: string | number | null }>`
    SELECT r.id AS receipt_id, b.profile_id
      FROM baskets b
      LEFT JOIN receipts r ON r.merchant_id = b.merchant_id AND r.kind = 'pos_basket'
                          AND r.source_ref = ${posBasketSourceRefOf('b')}
     WHERE b.merchant_id = ${merchantId} AND b.tracking_unit_id = ${trackingUnitId} AND b.basket_id = ${basketId}`.execute(
    trx,
  );
  const row = rows[0];
  if (!row) return undefined;
  // The receipt's row alone is locked: the till's writes of the basket do not wait for it.
  await lockReceiptRow(trx, row.receipt_id);
  return { receiptId: row.receipt_id, profileId: row.profile_id === null ? null : Number(row.profile_id) };
}

/**
 * The receipt's row locked for the transaction `trx`, so that two requests to send its mail again
 * queue one message; nothing for a receipt not yet written (null).
 */
async function lockReceiptRow(trx: Kysely<DB>, receiptId: string | null): Promise<void> {
  if (receiptId !== null) await sql`SELECT 1 FROM receipts WHERE id = ${receiptId} FOR UPDATE`.execute(trx);
}

/**
 * The condition "the latest purchase notification of the receipt of basket `b` is of one of these
 * kinds", looked up basket by basket: for a few baskets (a customer's), or where most match (sent),
 * so that a page stops at its last basket.
 */
function basketReceiptMailIn(b: string, kinds: readonly ReceiptMailKind[]) {
  const ref = (c: string) => sql.ref(`${b}.${c}`);
  const latest = latestNotification(sql.ref('r.merchant_id'), sql.ref('r.id'));
  // A scalar subquery, read for each basket with its keys known, so that the receipt is found by
  // its key, not joined to all the merchant's receipts.
  return sql<boolean>`(SELECT n.kind FROM receipts r CROSS JOIN LATERAL (${latest}) n
     WHERE r.merchant_id = ${ref('merchant_id')} AND r.kind = 'pos_basket'
       AND r.source_ref = ${posBasketSourceRefOf(b)})
     IN (${sql.join(kinds.map((k) => sql`${k}`))})`;
}

/**
 * The customer's granted baskets whose receipt mail was refused or given up, newest first (at most
 * `limit`), with the basket's time: what an owner sends again once the address is corrected.
 */
export async function undeliveredBasketReceipts(
  db: Kysely<DB>,
  merchantId: number,
  profileId: number,
  limit: number,
): Promise<{ trackingUnitId: string; basketId: string; atMs: number }[]> {
  const rows = await db
    .selectFrom('baskets as b')
    .select(['b.tracking_unit_id', 'b.basket_id', 'b.timestamp_utc'])
    .where('b.merchant_id', '=', merchantId)
    .where('b.profile_id', '=', profileId)
    .where('b.granted_at', 'is not', null)
    .where(basketReceiptMailIn('b', ['refused', 'given_up']))
    .orderBy('b.timestamp_utc', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    trackingUnitId: r.tracking_unit_id,
    basketId: r.basket_id,
    atMs: new Date(r.timestamp_utc).getTime(),
  }));
}

/**
 * The receipt of the merchant's checkout order, its customer profile and what the order charged to
 * the balance, the receipt's row locked as `lockBasketReceipt` locks a basket's; undefined when the
 * order is unknown.
 */
export async function lockOrderReceipt(
  trx: Kysely<DB>,
  merchantId: number,
  orderId: string,
): Promise<{ receiptId: string | null; profileId: number; chargedMinor: number } | undefined> {
  const row = await trx
    .selectFrom('checkout_orders')
    .select(['receipt_id', 'profile_id', 'charged_minor'])
    .where('merchant_id', '=', merchantId)
    .where('id', '=', orderId)
    .executeTakeFirst();
  if (!row) return undefined;
  await lockReceiptRow(trx, row.receipt_id);
  return {
    receiptId: row.receipt_id,
    profileId: Number(row.profile_id),
    chargedMinor: Number(row.charged_minor),
  };
}

/**
 * The customer's checkout orders paid from the balance whose receipt mail was refused or given up,
 * newest first (at most `limit`), with the time each was placed: read through the customer's
 * orders by time (migration 0025), each one's latest notification looked up by its receipt.
 */
export async function undeliveredOrderReceipts(
  db: Kysely<DB>,
  merchantId: number,
  profileId: number,
  limit: number,
): Promise<{ orderId: string; atMs: number }[]> {
  const latest = latestNotification(sql.ref('o.merchant_id'), sql.ref('o.receipt_id'));
  const rows = await db
    .selectFrom('checkout_orders as o')
    .select(['o.id', 'o.created_at'])
    .where('o.profile_id', '=', profileId)
    .where('o.merchant_id', '=', merchantId)
    .where('o.charged_minor', '>', 0)
    .where(sql<boolean>`(SELECT n.kind FROM (${latest}) n) IN ('refused', 'given_up')`)
    .orderBy('o.created_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ orderId: r.id, atMs: new Date(r.created_at).getTime() }));
}

/**
 * The condition "the latest purchase notification of the receipt of checkout order `o` (an alias of
 * `checkout_orders`) of the merchant `merchantId` is of this kind", for the order search, as
 * `basketReceiptMailIs` for baskets: a sent mail looked up order by order, newest first, until the
 * page is full; the other kinds found from the notifications not delivered (migration 0059) and
 * matched to the orders by their receipts' source keys, the order's id.
 */
export function orderReceiptMailIs(o: string, merchantId: number, kind: ReceiptMailFilter) {
  if (kind === 'sent') {
    const own = latestNotification(sql.ref(`${o}.merchant_id`), sql.ref(`${o}.receipt_id`));
    return sql<boolean>`(SELECT n.kind FROM (${own}) n) = ${kind}`;
  }
  return sql<boolean>`${sql.ref(`${o}.id`)} IN (${undeliveredSourceRefs(merchantId, 'checkout_order', kind)})`;
}
