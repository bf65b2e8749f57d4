import { WELCOME_MAIL, type WelcomeMailEvent } from '../cards/enrolment.service.js';
import type { DeliveryOutcome, OutboxHandler } from '../outbox/dispatcher.js';
import type { OutboxMessage } from '../outbox/outbox.store.js';
import type { Clock } from '../shared/clock.js';
import { accountOverview } from './consumer-account.store.js';
import { sendMailAndPush } from './mail-and-push.js';
import { MAIL_RETRY_SCHEDULE_MS, type PurchaseHandlerDeps } from './purchase.handler.js';
import { composeWelcomeMail } from './welcome-mail.js';

function isWelcome(p: unknown): p is WelcomeMailEvent {
  return typeof (p as Partial<WelcomeMailEvent> | null)?.profileId === 'number';
}

export type WelcomeHandlerDeps = Pick<PurchaseHandlerDeps, 'db' | 'mailer' | 'push' | 'publicBaseUrl'> & {
  readonly clock: Clock;
};

/**
 * Delivers the welcome mail of a customer enrolled in the portal (docs/decisions.md, "The welcome
 * mail"): to the address the profile has when it is sent, with its cards, balance and points as
 * they are then; a profile whose address was removed since is delivered with nothing sent. A mail
 * that failed is retried by the dispatcher's schedule, one refused for good is given up, as the
 * purchase mail's. It pushes nothing: a customer just enrolled has no browser subscribed.
 */
export class WelcomeMailHandler implements OutboxHandler {
  readonly topic = WELCOME_MAIL;
  readonly retryScheduleMs = MAIL_RETRY_SCHEDULE_MS;

  constructor(private readonly deps: WelcomeHandlerDeps) {}

  async deliver(message: OutboxMessage, stop: AbortSignal): Promise<DeliveryOutcome> {
    const { db } = this.deps;
    const event = message.payload;
    if (!isWelcome(event)) return { ok: false, error: 'not a welcome mail', permanent: true };
    const overview = await accountOverview(db, event.profileId, this.deps.clock.nowMs(), () => ({
      limit: 1,
      beforeId: null,
    }));
    if (!overview || overview.merchantId !== message.merchantId) {
      return { ok: false, error: 'profile unknown', permanent: true };
    }
    const mail = overview.email
      ? composeWelcomeMail(
          { email: overview.email, fullName: overview.fullName, language: overview.language },
          {
            merchantName: overview.merchantName,
            timeZone: overview.timeZone,
            currency: overview.currency,
            balanceMinor: overview.balanceMinor,
            points: overview.points,
            cards: overview.cards.map((c) => c.tokenId),
            portalUrl: `${this.deps.publicBaseUrl}/me`,
          },
        )
      : 'no_address';
    return sendMailAndPush(this.deps, message, { mail, push: { body: '', subscriptions: [] } }, {}, stop);
  }
}
