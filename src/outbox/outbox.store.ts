import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import type { OutboxPayload, OutboxStatus } from '../store/tables/outbox.js';

/**
 * The outbox's queries (docs/decisions.md "Outbox and dispatcher"). A message is enqueued with the
 * transaction of the change it reports, so it exists exactly when the change does; the dispatcher
 * claims due messages with a lease, delivers them and records every attempt.
 */

export interface OutboxMessage {
  readonly id: number;
  readonly merchantId: number;
  readonly topic: string;
  readonly payload: OutboxPayload;
  /** The number of this attempt, from 1. */
  readonly attempt: number;
  readonly createdAt: Date;
}

export interface EnqueueInput {
  readonly merchantId: number;
  readonly topic: string;
  readonly payload: OutboxPayload;
  /** The message is not sent before this instant. */
  readonly notBefore: Date;
  /**
   * When the change it reports was made, on the service's clock (as its attempts and delivery are
   * stamped); the database's time when not given.
   */
  readonly createdAt?: Date;
}

/**
 * Writes a message. Pass the transaction of the change the message reports, so that both commit
 * or neither does; call the dispatcher's `nudge()` after the commit.
 */
export async function enqueueOutbox(db: Kysely<DB>, input: EnqueueInput): Promise<number> {
  const row = await db
    .insertInto('outbox_messages')
    .values({
      merchant_id: input.merchantId,
      topic: input.topic,
      payload: JSON.stringify(input.payload),
      next_attempt_at: input.notBefore,
      ...(input.createdAt === undefined ? {} : { created_at: input.createdAt }),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * Claims up to `limit` due messages of the given topics for `leaseMs`: rows another process
 * holds locked are skipped, and a lease that ran out (its process died) is taken over. Claiming
 * counts the attempt.
 */
export async function claimDueMessages(
  db: Kysely<DB>,
  topics: readonly string[],
  now: Date,
  leaseMs: number,
  limit: number,
): Promise<OutboxMessage[]> {
  if (topics.length === 0) return [];
  const leaseUntil = new Date(now.getTime() + leaseMs);
  const rows = await db
    .updateTable('outbox_messages')
    .set({ locked_until: leaseUntil, attempts: sql`attempts + 1` })
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('outbox_messages')
        .select('id')
        .where('status', '=', 'pending')
        .where('next_attempt_at', '<=', now)
        .where('topic', 'in', topics)
        .where((w) => w.or([w('locked_until', 'is', null), w('locked_until', '<=', now)]))
        .orderBy('next_attempt_at')
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .returning(['id', 'merchant_id', 'topic', 'payload', 'attempts', 'created_at'])
    .execute();
  return rows.map((r) => ({
    id: r.id,
    merchantId: r.merchant_id,
    topic: r.topic,
    payload: r.payload,
    attempt: r.attempts,
    createdAt: r.created_at,
  }));
}

export interface AttemptRecord {
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly ok: boolean;
  readonly error: string | null;
  readonly detail: Record<string, unknown> | null;
  /** ok: delivered. Otherwise the next attempt's time, or null when the message is given up. */
  readonly nextAttemptAt: Date | null;
}

/** What the recorded attempts of a message said of what they did (their detail), oldest first. */
export async function earlierAttemptDetails(
  db: Kysely<DB>,
  messageId: number,
): Promise<Record<string, unknown>[]> {
  const rows = await db
    .selectFrom('outbox_attempts')
    .select('detail')
    .where('message_id', '=', messageId)
    .where('detail', 'is not', null)
    .orderBy('attempt')
    .execute();
  return rows.map((r) => r.detail as Record<string, unknown>);
}

/**
 * Records an attempt and its outcome. Only the holder of the claim may: when the lease ran out
 * and another process claimed the message again (a higher attempt number), this answers false
 * and changes nothing.
 */
export async function recordAttempt(
  db: Kysely<DB>,
  message: Pick<OutboxMessage, 'id' | 'attempt'>,
  record: AttemptRecord,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const status: OutboxStatus = record.ok ? 'delivered' : record.nextAttemptAt === null ? 'dead' : 'pending';
    const updated = await trx
      .updateTable('outbox_messages')
      .set({
        status,
        locked_until: null,
        last_error: record.ok ? null : record.error,
        delivered_at: record.ok ? record.finishedAt : null,
        ...(record.nextAttemptAt !== null && !record.ok ? { next_attempt_at: record.nextAttemptAt } : {}),
      })
      .where('id', '=', message.id)
      .where('attempts', '=', message.attempt)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (updated.numUpdatedRows === 0n) return false;
    await trx
      .insertInto('outbox_attempts')
      .values({
        message_id: message.id,
        attempt: message.attempt,
        started_at: record.startedAt,
        finished_at: record.finishedAt,
        ok: record.ok,
        error: record.error,
        detail: record.detail === null ? null : JSON.stringify(record.detail),
      })
      .execute();
    return true;
  });
}

export interface OutboxMessageView {
  readonly id: number;
  readonly topic: string;
  readonly status: OutboxStatus;
  readonly attempts: number;
  readonly nextAttemptAt: Date;
  readonly lastError: string | null;
  readonly createdAt: Date;
  readonly deliveredAt: Date | null;
  readonly payload: OutboxPayload;
  readonly attemptLog: {
    attempt: number;
    startedAt: Date;
    finishedAt: Date;
    ok: boolean;
    error: string | null;
    detail: Record<string, unknown> | null;
  }[];
}

export interface OutboxFilter {
  readonly merchantId: number;
  readonly topic?: string;
  /** Messages whose payload holds these top-level values (JSON containment), e.g. a webhook id. */
  readonly payloadContains?: Record<string, string | number | boolean>;
  readonly status?: OutboxStatus;
  /** Newest first, at most this many. */
  readonly limit: number;
  /** Only messages with a smaller id (the next page). */
  readonly beforeId?: number;
}

/** A merchant's messages with their attempts, newest first: what the portal and tests read. */
export async function listOutboxMessages(db: Kysely<DB>, filter: OutboxFilter): Promise<OutboxMessageView[]> {
  let query = db
    .selectFrom('outbox_messages')
    .selectAll()
    .where('merchant_id', '=', filter.merchantId)
    .orderBy('id', 'desc')
    .limit(filter.limit);
  if (filter.topic !== undefined) query = query.where('topic', '=', filter.topic);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.beforeId !== undefined) query = query.where('id', '<', filter.beforeId);
  if (filter.payloadContains !== undefined) {
    query = query.where(sql<boolean>`payload @> ${JSON.stringify(filter.payloadContains)}::jsonb`);
  }
  const rows = await query.execute();
  if (rows.length === 0) return [];
  const attempts = await db
    .selectFrom('outbox_attempts')
    .selectAll()
    .where(
      'message_id',
      'in',
      rows.map((r) => r.id),
    )
    .orderBy('message_id')
    .orderBy('attempt')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    topic: r.topic,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    lastError: r.last_error,
    createdAt: r.created_at,
    deliveredAt: r.delivered_at,
    payload: r.payload,
    attemptLog: attempts
      .filter((a) => a.message_id === r.id)
      .map((a) => ({
        attempt: a.attempt,
        startedAt: a.started_at,
        finishedAt: a.finished_at,
        ok: a.ok,
        error: a.error,
        detail: a.detail,
      })),
  }));
}

/** What asking to retry a message did. */
export type RetryOutcome =
  /** Pending and due now: the next dispatcher to look makes one more attempt. */
  | 'retried'
  /** The merchant has no such message (of this topic). */
  | 'unknown'
  /** Delivered already: nothing to retry. */
  | 'delivered'
  /** A dispatcher holds it for an attempt right now; its outcome comes first. */
  | 'in_flight';

/**
 * The merchant's pending or given-up messages made due now, as a person's retry does: not one a
 * dispatcher's live lease holds (its record would overwrite the new due time), nor one delivered.
 */
function dueNowUnlessHeld(db: Kysely<DB>, merchantId: number, now: Date) {
  return db
    .updateTable('outbox_messages')
    .set({ status: 'pending', next_attempt_at: now })
    .where('merchant_id', '=', merchantId)
    .where('status', 'in', ['pending', 'dead'])
    .where((w) => w.or([w('locked_until', 'is', null), w('locked_until', '<=', now)]));
}

/**
 * Makes a pending or given-up message of the merchant due now, for one more attempt (a person
 * asked to retry it; docs/decisions.md "Outbox and dispatcher"). Its attempts are not reset: a
 * given-up message whose retry fails again is given up again, a pending one keeps its schedule. A
 * delivered message stays delivered, and a message under a live lease is left to the attempt that
 * holds it (its record would overwrite the new due time).
 */
export async function retryOutboxMessage(
  db: Kysely<DB>,
  merchantId: number,
  id: number,
  now: Date,
  options: { topic?: string } = {},
): Promise<RetryOutcome> {
  let update = dueNowUnlessHeld(db, merchantId, now).where('id', '=', id);
  if (options.topic !== undefined) update = update.where('topic', '=', options.topic);
  const updated = await update.executeTakeFirst();
  if (updated.numUpdatedRows > 0n) return 'retried';
  let read = db
    .selectFrom('outbox_messages')
    .select('status')
    .where('id', '=', id)
    .where('merchant_id', '=', merchantId);
  if (options.topic !== undefined) read = read.where('topic', '=', options.topic);
  const row = await read.executeTakeFirst();
  if (!row) return 'unknown';
  return row.status === 'delivered' ? 'delivered' : 'in_flight';
}

/**
 * Makes every failed message of the merchant on `topic` whose payload holds `payloadContains` due
 * now, for one more attempt each (a person asked to retry them all: the endpoint that was down is
 * up again; docs/decisions.md "Merchant portal: checkout clients and webhooks"): those given up and
 * those waiting for their next try after a failed one. As one by one (`retryOutboxMessage`): their
 * attempts are not reset, a message under a live lease is left to the attempt that holds it, one
 * never tried is due already. Answers how many were made due.
 */
export async function retryFailedOutboxMessages(
  db: Kysely<DB>,
  merchantId: number,
  topic: string,
  payloadContains: Record<string, string | number | boolean>,
  now: Date,
): Promise<number> {
  const updated = await dueNowUnlessHeld(db, merchantId, now)
    .where('topic', '=', topic)
    .where('attempts', '>', 0)
    .where(sql<boolean>`payload @> ${JSON.stringify(payloadContains)}::jsonb`)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows);
}
