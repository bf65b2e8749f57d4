import type { Kysely } from 'kysely';
import type { DeliveryOutcome, OutboxHandler } from '../outbox/dispatcher.js';
import type { OutboxMessage } from '../outbox/outbox.store.js';
import { languageOf, pushSummary, receiptWords } from '../receipts/receipt-text.js';
import type { DB } from '../store/schema.js';
import { notifiedProfile, preferencesOf, pushSubscriptionsOf } from './consumer.store.js';
import type { Mailer } from './mailer.js';
import { composePurchaseMail } from './purchase-mail.js';
import type { PushSender } from './push.js';
import { type MailAndPush, sendMailAndPush } from './mail-and-push.js';
import { findReceipt, receiptUrl } from '../receipts/receipt.store.js';
import type { ReceiptSources } from './receipt-lookup.js';
import { PURCHASE_NOTIFICATION, type PurchaseNotification } from './purchase-notification.js';

function isNotification(p: unknown): p is PurchaseNotification {
  const x = p as Partial<PurchaseNotification> | null;
  return typeof x?.receiptId === 'string' && typeof x.profileId === 'number';
}

/** 30 s, 2 min, 10 min, 1 h, 6 h: about seven and a half hours before a consumer's mail is given up. */
export const MAIL_RETRY_SCHEDULE_MS: readonly number[] = [30_000, 120_000, 600_000, 3_600_000, 21_600_000];

export interface PurchaseHandlerDeps {
  readonly db: Kysely<DB>;
  readonly mailer: Mailer;
  readonly push: PushSender;
  readonly sources: ReceiptSources;
  readonly publicBaseUrl: string;
}

/**
 * Sends a purchase notification (docs/decisions.md, "Notifications, receipts and the consumer
 * portal", "What is sent" and "Retries"): the mail, when the profile has an address and the
 * consumer left mail on, and a push message to each browser the consumer subscribed, when push is
 * on (sendMailAndPush: the push goes whatever became of the mail). The mail is what is retried: a
 * mail that failed fails the attempt, so the dispatcher tries again by its schedule, without
 * pushing again; one the server refused for good gives the message up. A push service that answers
 * 404 or 410 ended the subscription: it is removed.
 */
export class PurchaseNotificationHandler implements OutboxHandler {
  readonly topic = PURCHASE_NOTIFICATION;
  readonly retryScheduleMs = MAIL_RETRY_SCHEDULE_MS;

  constructor(private readonly deps: PurchaseHandlerDeps) {}

  async deliver(message: OutboxMessage, stop: AbortSignal): Promise<DeliveryOutcome> {
    const { db } = this.deps;
    const payload = message.payload;
    if (!isNotification(payload)) return { ok: false, error: 'not a purchase notification', permanent: true };
    const receipt = await findReceipt(db, payload.receiptId);
    const profile = await notifiedProfile(db, payload.profileId);
    if (!receipt || !profile || profile.merchantId !== receipt.merchantId) {
      return { ok: false, error: 'receipt or profile unknown', permanent: true };
    }
    const prefs = await preferencesOf(db, payload.profileId);
    const subscriptions = prefs.push ? await pushSubscriptionsOf(db, payload.profileId) : [];
    const detail: Record<string, unknown> = { event: payload.event };
    if (!(prefs.mail && profile.email) && subscriptions.length === 0) {
      // Nowhere to send it: done without reading the receipt (most consumers of a busy till).
      detail.mail = prefs.mail ? 'no_address' : 'switched_off';
      detail.push = prefs.push ? [] : 'switched_off';
      return { ok: true, detail };
    }
    const source = this.deps.sources.get(receipt.kind);
    const view = await source?.load(db, receipt.merchantId, receipt.sourceRef);
    if (!source || !view) return { ok: false, error: `no receipt view for ${receipt.kind}`, permanent: true };
    const url = receiptUrl(this.deps.publicBaseUrl, payload.receiptId);
    let mail: MailAndPush['mail'] = prefs.mail ? 'no_address' : 'switched_off';
    if (prefs.mail && profile.email) {
      const pdf =
        view.hasBillPdf && source.billPdf
          ? await source.billPdf(db, receipt.merchantId, receipt.sourceRef)
          : null;
      mail = composePurchaseMail(
        view,
        { ...profile, email: profile.email },
        url,
        `${this.deps.publicBaseUrl}/me`,
        pdf,
      );
    }
    const lang = languageOf(profile.language ?? view.language);
    const push: MailAndPush['push'] = prefs.push
      ? {
          body: JSON.stringify({
            title: receiptWords(lang).pushTitle(view.merchantName),
            body: pushSummary(view, lang),
            url,
            event: payload.event,
          }),
          subscriptions,
        }
      : 'switched_off';
    return sendMailAndPush(this.deps, message, { mail, push }, detail, stop);
  }
}
