import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import { DEFAULT_RETRY_SCHEDULE_MS, type DeliveryOutcome, type OutboxHandler } from '../outbox/dispatcher.js';
import type { OutboxMessage } from '../outbox/outbox.store.js';
import type { Clock } from '../shared/clock.js';
import { sendSignal } from '../shared/send-signal.js';
import type { DB } from '../store/schema.js';
import { checkWebhookTarget } from './target-check.js';
import { WEBHOOK_TOPIC, type WebhookDelivery, findWebhook, webhookMessageId } from './webhook.store.js';

/**
 * Sends webhook deliveries from the outbox (docs/decisions.md, "Checkout v1: webhooks"), signed
 * the Standard Webhooks way: `webhook-id` (the same on every attempt of a message),
 * `webhook-timestamp` (Unix seconds of the attempt) and `webhook-signature: v1,<base64 HMAC-SHA256
 * of "id.timestamp.body">` keyed with the bytes the secret encodes after `whsec_`. A 2xx answer is
 * a delivery; anything else is retried on the dispatcher's schedule (about three days).
 */

export function standardWebhookSignature(
  secret: string,
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

export interface WebhookDeliveryOptions {
  readonly allowPrivate: boolean;
  /** How long one attempt may take. */
  readonly timeoutMs?: number;
}

export class WebhookDeliveryHandler implements OutboxHandler {
  readonly topic = WEBHOOK_TOPIC;
  readonly retryScheduleMs = DEFAULT_RETRY_SCHEDULE_MS;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly clock: Clock,
    private readonly options: WebhookDeliveryOptions,
  ) {}

  async deliver(message: OutboxMessage, stop: AbortSignal): Promise<DeliveryOutcome> {
    const payload = message.payload as unknown as WebhookDelivery;
    const hook = await findWebhook(this.db, message.merchantId, payload.webhookId);
    if (!hook) return { ok: false, error: 'the webhook was deleted', permanent: true };
    // Checked again at every delivery: the name may resolve elsewhere than at registration.
    const target = await checkWebhookTarget(hook.url, this.options.allowPrivate);
    if (!target.ok) return { ok: false, error: `target refused: ${target.reason}` };
    const id = webhookMessageId(message);
    const timestamp = Math.floor(this.clock.nowMs() / 1000);
    const body = JSON.stringify(payload.body);
    try {
      const res = await fetch(target.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': id,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': standardWebhookSignature(hook.secret, id, timestamp, body),
        },
        body,
        // A redirect could lead to an address the check refuses: it counts as a failure.
        redirect: 'manual',
        signal: sendSignal(this.options.timeoutMs ?? 10_000, stop),
      });
      await res.body?.cancel();
      if (res.status >= 200 && res.status < 300) return { ok: true, detail: { status: res.status } };
      return { ok: false, error: `HTTP ${res.status}`, detail: { status: res.status } };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  }
}
