import { TIER_CHANGED, type TierChangedEvent } from '../loyalty/tier-change.js';
import type { DeliveryOutcome, OutboxHandler } from '../outbox/dispatcher.js';
import type { OutboxMessage } from '../outbox/outbox.store.js';
import { mailingMerchant, notifiedProfile, preferencesOf, pushSubscriptionsOf } from './consumer.store.js';
import { type MailAndPush, sendMailAndPush } from './mail-and-push.js';
import { MAIL_RETRY_SCHEDULE_MS, type PurchaseHandlerDeps } from './purchase.handler.js';
import { composeTierMail, composeTierPush } from './tier-mail.js';

function isTierChange(p: unknown): p is TierChangedEvent {
  const x = p as Partial<TierChangedEvent> | null;
  return (
    typeof x?.schemeId === 'number' && typeof x.upgrade === 'boolean' && typeof x.schemeName === 'string'
  );
}

export type TierHandlerDeps = Pick<PurchaseHandlerDeps, 'db' | 'mailer' | 'push' | 'publicBaseUrl'>;

/**
 * Delivers a tier-change event (docs/decisions.md, "Status tiers", "Tier-change events" and "The
 * push"): an upgrade of a consumer known by profile gets the mail "You reached Silver" when the
 * profile has an e-mail address and mail is on, and a push message to each browser the consumer
 * subscribed when push is on (as the purchase notification decides). A downgrade or a card without
 * a profile is delivered with nothing sent and says why. The mail and the push go as the purchase
 * notification's do (sendMailAndPush): a mail that failed is retried by the dispatcher's schedule,
 * the push is sent once whatever became of the mail, a mail refused for good gives the message up.
 */
export class TierChangeHandler implements OutboxHandler {
  readonly topic = TIER_CHANGED;
  readonly retryScheduleMs = MAIL_RETRY_SCHEDULE_MS;

  constructor(private readonly deps: TierHandlerDeps) {}

  async deliver(message: OutboxMessage, stop: AbortSignal): Promise<DeliveryOutcome> {
    const { db } = this.deps;
    const event = message.payload;
    if (!isTierChange(event)) return { ok: false, error: 'not a tier change', permanent: true };
    if (!event.upgrade || event.after === null) {
      return { ok: true, detail: { mail: 'not_an_upgrade', push: 'not_an_upgrade' } };
    }
    if (event.profileId === null) return { ok: true, detail: { mail: 'no_profile', push: 'no_profile' } };
    const profile = await notifiedProfile(db, event.profileId);
    const merchant = await mailingMerchant(db, message.merchantId);
    if (!profile || !merchant || profile.merchantId !== message.merchantId) {
      return { ok: false, error: 'profile unknown', permanent: true };
    }
    const prefs = await preferencesOf(db, event.profileId);
    const ctx = {
      merchantName: merchant.name,
      currency: merchant.currency,
      portalUrl: `${this.deps.publicBaseUrl}/me`,
    };
    const mail: MailAndPush['mail'] = !prefs.mail
      ? 'switched_off'
      : !profile.email
        ? 'no_address'
        : composeTierMail(
            event,
            { email: profile.email, fullName: profile.fullName, language: profile.language },
            ctx,
          );
    const push: MailAndPush['push'] = prefs.push
      ? {
          body: JSON.stringify({ ...composeTierPush(event, profile.language, ctx), event: 'tier_changed' }),
          subscriptions: await pushSubscriptionsOf(db, event.profileId),
        }
      : 'switched_off';
    return sendMailAndPush(this.deps, message, { mail, push }, {}, stop);
  }
}
