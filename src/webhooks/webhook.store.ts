import { randomBytes } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { DB } from '../store/schema.js';
import type { PageRequest } from '../shared/paging.js';

/**
 * Webhook registrations of a merchant (docs/decisions.md, "Checkout v1: webhooks") and the
 * events written for them. The secret is `whsec_` + base64 of 24 random bytes (Standard Webhooks);
 * a deleted webhook keeps its row (deleted_at) so that queued deliveries stop.
 */

type Db = Kysely<DB> | Transaction<DB>;

export const WEBHOOK_EVENTS = ['transaction.status.changed'] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export const WEBHOOK_TOPIC = 'webhook.delivery';

export interface WebhookView {
  id: string;
  url: string;
  event: string;
  secret: string;
  createdAt: string;
}

export interface WebhookDelivery {
  readonly webhookId: string;
  /**
   * The message's `webhook-id`: `msg_` and 24 random base32 characters (migration 0029); absent on
   * messages written before, which keep `msg_<outbox id>`.
   */
  readonly messageId?: string;
  readonly body: { type: string; timestamp: string; data: Record<string, unknown> };
}

function view(r: { id: string; url: string; event: string; secret: string; created_at: Date }): WebhookView {
  return { id: r.id, url: r.url, event: r.event, secret: r.secret, createdAt: r.created_at.toISOString() };
}

export async function createWebhook(
  db: Db,
  merchantId: number,
  input: { url: string; event: WebhookEvent },
  nowMs: number,
): Promise<WebhookView> {
  const row = await db
    .insertInto('webhooks')
    .values({
      merchant_id: merchantId,
      id: `wh_${randomBytes(12).toString('hex')}`,
      url: input.url,
      event: input.event,
      secret: `whsec_${randomBytes(24).toString('base64')}`,
      created_at: new Date(nowMs),
    })
    .returning(['id', 'url', 'event', 'secret', 'created_at'])
    .executeTakeFirstOrThrow();
  return view(row);
}

/** The merchant's live webhooks, oldest first; paged by (created_at, id) (docs/decisions.md, "Paging"). */
export async function listWebhooks(db: Db, merchantId: number, page?: PageRequest): Promise<WebhookView[]> {
  let q = db
    .selectFrom('webhooks')
    .select(['id', 'url', 'event', 'secret', 'created_at'])
    .where('merchant_id', '=', merchantId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id');
  const after = page?.after;
  if (after) {
    const at = new Date(Number(after[0]));
    const id = String(after[1]);
    q = q.where((eb) =>
      eb.or([eb('created_at', '>', at), eb.and([eb('created_at', '=', at), eb('id', '>', id)])]),
    );
  }
  if (page) q = q.limit(page.limit + 1);
  const rows = await q.execute();
  return rows.map(view);
}

/** The live webhook of the merchant under this id (another merchant's answers like an unknown one). */
export async function findWebhook(
  db: Db,
  merchantId: number | null,
  id: string,
): Promise<WebhookView | null> {
  let q = db
    .selectFrom('webhooks')
    .select(['id', 'url', 'event', 'secret', 'created_at'])
    .where('id', '=', id)
    .where('deleted_at', 'is', null);
  if (merchantId !== null) q = q.where('merchant_id', '=', merchantId);
  const row = await q.executeTakeFirst();
  return row ? view(row) : null;
}

export async function deleteWebhook(db: Db, merchantId: number, id: string, nowMs: number): Promise<boolean> {
  const row = await db
    .updateTable('webhooks')
    .set({ deleted_at: new Date(nowMs) })
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

/** The `webhook-id` of a delivery message, the same on every attempt (docs/decisions.md, "Webhooks"). */
export function webhookMessageId(message: { readonly id: number; readonly payload: unknown }): string {
  const kept = (message.payload as Partial<WebhookDelivery> | null)?.messageId;
  return typeof kept === 'string' ? kept : `msg_${message.id}`;
}
