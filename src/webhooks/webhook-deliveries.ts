import {
  type OutboxMessageView,
  type RetryOutcome,
  listOutboxMessages,
  retryFailedOutboxMessages,
  retryOutboxMessage,
} from '../outbox/outbox.store.js';
import type { OutboxStatus } from '../store/tables/outbox.js';
import type { Deps } from '../store/deps.js';
import { WEBHOOK_TOPIC, type WebhookDelivery, findWebhook, webhookMessageId } from './webhook.store.js';
import { type Page, pageOf, pageRequest } from '../shared/paging.js';

/**
 * A merchant's webhook deliveries as people look at them (the merchant portal): the outbox
 * messages of the webhook topic with every attempt, newest first (docs/decisions.md, "Merchant
 * portal: checkout clients and webhooks").
 */

export interface WebhookAttemptView {
  attempt: number;
  startedAt: string;
  finishedAt: string;
  ok: boolean;
  error: string | null;
  detail: Record<string, unknown> | null;
}

export interface WebhookDeliveryView {
  id: number;
  /** The `webhook-id` the receiver sees. */
  messageId: string;
  webhookId: string;
  event: WebhookDelivery['body'];
  status: OutboxStatus;
  /** When the next attempt is due; null once delivered or given up. */
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
  attempts: WebhookAttemptView[];
}

export interface WebhookDeliveryPage {
  deliveries: WebhookDeliveryView[];
  /** Pass as `before` for the next (older) page; null when this is the last. */
  nextBefore: number | null;
}

export async function listWebhookDeliveries(
  { db }: Deps,
  merchantId: number,
  options: { webhookId?: string; beforeId?: number; limit: number },
): Promise<WebhookDeliveryPage> {
  const rows = await listOutboxMessages(db, {
    merchantId,
    topic: WEBHOOK_TOPIC,
    limit: options.limit + 1,
    ...(options.beforeId === undefined ? {} : { beforeId: options.beforeId }),
    ...(options.webhookId === undefined ? {} : { payloadContains: { webhookId: options.webhookId } }),
  });
  const page = rows.slice(0, options.limit);
  const last = page[page.length - 1];
  return {
    deliveries: page.map(deliveryView),
    nextBefore: rows.length > options.limit && last ? last.id : null,
  };
}

/**
 * A page of the merchant's deliveries, newest first, in the paging style of every list
 * (docs/decisions.md, "Paging"): the key is the message id, which only grows.
 */
export async function pageWebhookDeliveries(
  { db }: Deps,
  merchantId: number,
  query: { webhookId?: string | undefined; limit?: number | undefined; cursor?: string | undefined },
): Promise<Page<WebhookDeliveryView>> {
  const page = pageRequest('webhookDeliveries', query, ['number']);
  const rows = await listOutboxMessages(db, {
    merchantId,
    topic: WEBHOOK_TOPIC,
    limit: page.limit + 1,
    ...(page.after === null ? {} : { beforeId: Number(page.after[0]) }),
    ...(query.webhookId === undefined ? {} : { payloadContains: { webhookId: query.webhookId } }),
  });
  return pageOf('webhookDeliveries', rows, page.limit, (m) => [m.id], deliveryView);
}

function deliveryView(m: OutboxMessageView): WebhookDeliveryView {
  const payload = m.payload as unknown as WebhookDelivery;
  return {
    id: m.id,
    messageId: webhookMessageId(m),
    webhookId: payload.webhookId,
    event: payload.body,
    status: m.status,
    nextAttemptAt: m.status === 'pending' ? m.nextAttemptAt.toISOString() : null,
    lastError: m.lastError,
    createdAt: m.createdAt.toISOString(),
    deliveredAt: m.deliveredAt === null ? null : m.deliveredAt.toISOString(),
    attempts: m.attemptLog.map((a) => ({
      attempt: a.attempt,
      startedAt: a.startedAt.toISOString(),
      finishedAt: a.finishedAt.toISOString(),
      ok: a.ok,
      error: a.error,
      detail: a.detail,
    })),
  };
}

/** One delivery of the merchant, or null (another merchant's, another topic's or none). */
export async function findWebhookDelivery(
  deps: Deps,
  merchantId: number,
  id: number,
): Promise<WebhookDeliveryView | null> {
  const page = await listWebhookDeliveries(deps, merchantId, { beforeId: id + 1, limit: 1 });
  const found = page.deliveries[0];
  return found && found.id === id ? found : null;
}

/** A person retries a delivery: due now, one more attempt (the outbox's rule). */
export function retryWebhookDelivery(deps: Deps, merchantId: number, id: number): Promise<RetryOutcome> {
  return retryOutboxMessage(deps.db, merchantId, id, new Date(deps.clock.nowMs()), { topic: WEBHOOK_TOPIC });
}

/**
 * Every delivery of the merchant's webhook that failed or was given up, due now for one more
 * attempt each (its endpoint is back); how many, or null when the merchant has no such webhook
 * (deleted, or another merchant's).
 */
export async function retryFailedWebhookDeliveries(
  deps: Deps,
  merchantId: number,
  webhookId: string,
): Promise<number | null> {
  if (!(await findWebhook(deps.db, merchantId, webhookId))) return null;
  return retryFailedOutboxMessages(
    deps.db,
    merchantId,
    WEBHOOK_TOPIC,
    { webhookId },
    new Date(deps.clock.nowMs()),
  );
}
