import { TIER_CHANGED, type TierChangedEvent } from '../loyalty/tier-change.js';
import type { DeliveryOutcome, OutboxHandler } from '../outbox/dispatcher.js';
import type { OutboxMessage } from '../outbox/outbox.store.js';
import { mailingMerchant, notifiedProfile, preferencesOf } from './consumer.store.js';
import { MAIL_RETRY_SCHEDULE_MS, type PurchaseHandlerDeps } from './purchase.handler.js';
import { composeTierMail } from './tier-mail.js';

function isTierChange(p: unknown): p is TierChangedEvent {
  const x = p as Partial<TierChangedEvent> | null;
  return (
    typeof x?.schemeId === 'number' && typeof x.upgrade === 'boolean' && typeof x.schemeName === 'string'
  );
}

export type TierHandlerDeps = Pick<PurchaseHandlerDeps, 'db' | 'mailer' | 'publicBaseUrl'>;

/**
 * Delivers a tier-change event (docs/decisions.md, "Status tiers", "Tier-change events"): an
 * upgrade of a consumer known by profile, with an e-mail address and mail left on (as the purchase
 * mail decides), gets the mail "You reached Silver"; a downgrade, a card without a profile, a
 * profile without an address or with mail switched off is delivered with nothing sent and says
 * why. A refused mail fails the attempt and is retried by the dispatcher's schedule.
 */
export class TierChangeHandler implements OutboxHandler {
  readonly topic = TIER_CHANGED;
  readonly retryScheduleMs = MAIL_RETRY_SCHEDULE_MS;

  constructor(private readonly deps: TierHandlerDeps) {}

  async deliver(message: OutboxMessage): Promise<DeliveryOutcome> {
    const { db } = this.deps;
    const event = message.payload;
    if (!isTierChange(event)) return { ok: false, error: 'not a tier change', permanent: true };
    if (!event.upgrade || event.after === null) return { ok: true, detail: { mail: 'not_an_upgrade' } };
    if (event.profileId === null) return { ok: true, detail: { mail: 'no_profile' } };
    const profile = await notifiedProfile(db, event.profileId);
    const merchant = await mailingMerchant(db, message.merchantId);
    if (!profile || !merchant || profile.merchantId !== message.merchantId) {
      return { ok: false, error: 'profile unknown', permanent: true };
    }
    const prefs = await preferencesOf(db, event.profileId);
    if (!prefs.mail) return { ok: true, detail: { mail: 'switched_off' } };
    if (!profile.email) return { ok: true, detail: { mail: 'no_address' } };
    const mail = composeTierMail(
      event,
      { email: profile.email, fullName: profile.fullName, language: profile.language },
      {
        merchantName: merchant.name,
        currency: merchant.currency,
        portalUrl: `${this.deps.publicBaseUrl}/me`,
      },
    );
    try {
      await this.deps.mailer.send(mail);
    } catch (err) {
      return { ok: false, error: `mail: ${err instanceof Error ? err.message : String(err)}` };
    }
    return { ok: true, detail: { mail: 'sent' } };
  }
}
