import type { Kysely } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import { checkWebhookTarget } from './target-check.js';
import { WEBHOOK_EVENTS, type WebhookEvent, type WebhookView, createWebhook } from './webhook.store.js';

/** Registers a webhook after checking its event and its target (docs/decisions.md). */
export async function registerWebhook(
  db: Kysely<DB>,
  merchantId: number,
  input: { url: string; event: string },
  options: { allowPrivate: boolean; nowMs: number },
): Promise<WebhookView> {
  const event = input.event.trim();
  if (!(WEBHOOK_EVENTS as readonly string[]).includes(event)) throw new AppError('webhookEventUnknown');
  const target = await checkWebhookTarget(input.url.trim(), options.allowPrivate);
  if (!target.ok) throw new AppError('webhookUrlRefused', target.reason);
  return createWebhook(
    db,
    merchantId,
    { url: target.url.toString(), event: event as WebhookEvent },
    options.nowMs,
  );
}
