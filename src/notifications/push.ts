import type { Kysely } from 'kysely';
import webpush from 'web-push';
import { sendSignal } from '../shared/send-signal.js';
import type { DB } from '../store/schema.js';
import { addSettings, readSettings } from './settings.store.js';
import { checkWebhookTarget } from '../webhooks/target-check.js';

/**
 * Web Push with VAPID (RFC 8292) and payload encryption (RFC 8291) through the `web-push`
 * package. The keys come from the settings VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY; without them the
 * first start generates a pair and keeps it in the `settings` table, so that subscriptions made
 * against it stay valid across restarts and across server processes.
 */
export interface VapidKeys {
  readonly publicKey: string;
  readonly privateKey: string;
}

const PUBLIC = 'vapid_public_key';
const PRIVATE = 'vapid_private_key';

export async function loadVapidKeys(db: Kysely<DB>, configured: VapidKeys | null): Promise<VapidKeys> {
  if (configured !== null) return configured;
  const read = async () => {
    const rows = await readSettings(db, [PUBLIC, PRIVATE]);
    const pub = rows.find((r) => r.key === PUBLIC)?.value;
    const priv = rows.find((r) => r.key === PRIVATE)?.value;
    return pub && priv ? { publicKey: pub, privateKey: priv } : null;
  };
  const existing = await read();
  if (existing) return existing;
  const generated = webpush.generateVAPIDKeys();
  // Two processes starting together: the first pair written wins, both read it back.
  await addSettings(db, [
    { key: PUBLIC, value: generated.publicKey },
    { key: PRIVATE, value: generated.privateKey },
  ]);
  const stored = await read();
  if (!stored) throw new Error('VAPID keys were not stored');
  return stored;
}

export interface PushTarget {
  readonly endpoint: string;
  readonly p256dh: string;
  readonly auth: string;
}

export type PushResult = 'sent' | 'gone' | { error: string };

/**
 * A push endpoint the service may call: https on a public address, as for webhooks
 * (docs/decisions.md, "Checkout v1: webhooks"); plain http and private addresses only when
 * WEBHOOK_ALLOW_PRIVATE (local push services of development and tests).
 */
export async function checkPushEndpoint(
  endpoint: string,
  allowPrivate: boolean,
): Promise<{ ok: true } | { ok: false; reason: string }> {
  const target = await checkWebhookTarget(endpoint, allowPrivate);
  if (!target.ok) return target;
  if (target.url.protocol !== 'https:' && !allowPrivate) return { ok: false, reason: 'not https' };
  return { ok: true };
}

/** Lazily loaded keys (the first push or portal page), once per service instance. */
export class PushSender {
  #keys: Promise<VapidKeys> | null = null;
  constructor(
    private readonly db: Kysely<DB>,
    private readonly configured: VapidKeys | null,
    private readonly subject: string,
    /** Endpoints on private or loopback addresses, and plain http, only when WEBHOOK_ALLOW_PRIVATE. */
    private readonly allowPrivate: boolean,
  ) {}

  keys(): Promise<VapidKeys> {
    this.#keys ??= loadVapidKeys(this.db, this.configured).catch((err: unknown) => {
      this.#keys = null;
      throw err;
    });
    return this.#keys;
  }

  /**
   * Sends one encrypted message; 'gone' when the push service says the subscription ended. The
   * request (encryption, VAPID header) is built by `web-push`; it is sent with fetch, which also
   * speaks plain http for the local push services of development and tests (subscriptions with
   * http endpoints are accepted only with WEBHOOK_ALLOW_PRIVATE).
   */
  async send(target: PushTarget, payload: string, stop?: AbortSignal): Promise<PushResult> {
    // Checked again before every delivery: the name may resolve elsewhere by now.
    const where = await checkPushEndpoint(target.endpoint, this.allowPrivate);
    if (!where.ok) return { error: `push endpoint refused: ${where.reason}` };
    const keys = await this.keys();
    try {
      const request = webpush.generateRequestDetails(
        { endpoint: target.endpoint, keys: { p256dh: target.p256dh, auth: target.auth } },
        payload,
        {
          vapidDetails: { subject: this.subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
          TTL: 24 * 3600,
          contentEncoding: 'aes128gcm',
        },
      );
      const res = await fetch(request.endpoint, {
        method: request.method,
        headers: request.headers as Record<string, string>,
        body: request.body ?? null,
        redirect: 'error',
        signal: sendSignal(10_000, stop),
      });
      await res.arrayBuffer();
      if (res.status === 404 || res.status === 410) return 'gone';
      if (res.status < 200 || res.status > 299) return { error: `push service answered ${res.status}` };
      return 'sent';
    } catch (err) {
      return { error: err instanceof Error ? err.message : String(err) };
    }
  }
}
