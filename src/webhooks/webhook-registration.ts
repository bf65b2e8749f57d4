import { AppError } from '../shared/errors.js';
import type { Transaction } from 'kysely';
import type { Deps } from '../store/deps.js';
import type { DB } from '../store/schema.js';
import { checkWebhookTarget } from './target-check.js';
import {
  WEBHOOK_EVENTS,
  type WebhookEvent,
  type WebhookView,
  createWebhook,
  deleteWebhook,
} from './webhook.store.js';

/** What the webhook use cases work with: the deps, and whether private targets are allowed. */
export interface WebhookDeps extends Deps {
  /** Targets on private addresses or over http only with WEBHOOK_ALLOW_PRIVATE. */
  readonly allowPrivate: boolean;
}

/**
 * Registers a webhook after checking its event and its target (docs/decisions.md). Under an
 * Idempotency-Key, `keep` stores the answer in the transaction that creates the webhook.
 */
export async function registerWebhook(
  deps: WebhookDeps,
  merchantId: number,
  input: { url: string; event: string },
  keep?: (trx: Transaction<DB>, body: WebhookView) => Promise<void>,
): Promise<WebhookView> {
  const event = input.event.trim();
  if (!(WEBHOOK_EVENTS as readonly string[]).includes(event)) throw new AppError('webhookEventUnknown');
  const target = await checkWebhookTarget(input.url.trim(), deps.allowPrivate);
  if (!target.ok) throw new AppError('webhookUrlRefused', target.reason);
  const nowMs = deps.clock.nowMs();
  const made = { url: target.url.toString(), event: event as WebhookEvent };
  if (!keep) return createWebhook(deps.db, merchantId, made, nowMs);
  return deps.db.transaction().execute(async (trx) => {
    const hook = await createWebhook(trx, merchantId, made, nowMs);
    await keep(trx, hook);
    return hook;
  });
}

/** Deletes a webhook of the merchant (kept, marked deleted now); false when there is none. */
export function unregisterWebhook(deps: Deps, merchantId: number, id: string): Promise<boolean> {
  return deleteWebhook(deps.db, merchantId, id, deps.clock.nowMs());
}
