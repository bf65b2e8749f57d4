import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './generated/types.gen.js';

/**
 * Checks a webhook delivery the Standard Webhooks way: `webhook-signature` holds one or more
 * `v1,<base64 HMAC-SHA256>` of `webhook-id.webhook-timestamp.body`, keyed with the bytes the
 * secret encodes after `whsec_`; the timestamp must lie within the tolerance of the receiver's clock.
 */

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export interface VerifyWebhookOptions {
  /** Seconds the timestamp may differ from now (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock in milliseconds (default Date.now()). */
  nowMs?: number;
}

type HeaderSource = Headers | Record<string, string | string[] | undefined>;

function header(headers: HeaderSource, name: string): string | null {
  if (headers instanceof Headers) return headers.get(name);
  const found = Object.entries(headers).find(([k]) => k.toLowerCase() === name)?.[1];
  return Array.isArray(found) ? (found[0] ?? null) : (found ?? null);
}

/**
 * Verifies a delivery and answers its event; throws WebhookVerificationError when a header is
 * missing, the timestamp is outside the tolerance, or no signature fits. `body` is the request body
 * exactly as received (text or bytes): parse only after verifying.
 */
export function verifyWebhook(
  secret: string,
  headers: HeaderSource,
  body: string | Uint8Array,
  options: VerifyWebhookOptions = {},
): WebhookEvent {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) {
    throw new WebhookVerificationError('webhook-id, webhook-timestamp and webhook-signature are required');
  }
  const seconds = Number(timestamp);
  const now = (options.nowMs ?? Date.now()) / 1000;
  if (!/^\d+$/.test(timestamp) || Math.abs(now - seconds) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError('webhook-timestamp is outside the tolerance');
  }
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`, 'utf8').update(bytes).digest();
  const fits = signatures.split(' ').some((candidate) => {
    const [version, value] = candidate.split(',', 2);
    if (version !== 'v1' || !value) return false;
    const given = Buffer.from(value, 'base64');
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
  if (!fits) throw new WebhookVerificationError('no webhook-signature fits the secret');
  return JSON.parse(bytes.toString('utf8')) as WebhookEvent;
}
