import type { Kysely } from 'kysely';
import type { DeliveryOutcome } from '../outbox/dispatcher.js';
import { earlierAttemptDetails, type OutboxMessage } from '../outbox/outbox.store.js';
import type { DB } from '../store/schema.js';
import type { Mailer, OutgoingMail } from './mailer.js';
import type { PushSender, PushTarget } from './push.js';
import { pushToSubscriptions } from './push-delivery.js';
import { refusedForGood } from './mail-retry.js';
import type { MailOutcome } from './purchase-notification.store.js';

/** What a consumer's message sends: its mail (or why none), its push (or why none). */
export interface MailAndPush {
  readonly mail: OutgoingMail | Extract<MailOutcome, 'switched_off' | 'no_address'>;
  readonly push:
    | {
        readonly body: string;
        readonly subscriptions: readonly (PushTarget & { readonly id: number })[];
      }
    | 'switched_off';
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Sends a consumer's message (docs/decisions.md, "Notifications, receipts and the consumer
 * portal": "Retries"): the mail, then the push messages whatever became of the mail, so that a
 * mail server's trouble never holds the push back. A mail that failed fails the attempt, to be
 * retried by the schedule; one refused for good gives the message up at once, with the server's
 * answer. A retried attempt does not push again what an earlier attempt pushed.
 */
export async function sendMailAndPush(
  deps: { readonly db: Kysely<DB>; readonly mailer: Mailer; readonly push: PushSender },
  message: Pick<OutboxMessage, 'id' | 'attempt'>,
  what: MailAndPush,
  detail: Record<string, unknown>,
  stop: AbortSignal,
): Promise<DeliveryOutcome> {
  let failure: { readonly error: string; readonly permanent: boolean } | null = null;
  let mail: MailOutcome;
  if (typeof what.mail === 'string') mail = what.mail;
  else {
    try {
      await deps.mailer.send(what.mail, stop);
      mail = 'sent';
    } catch (err) {
      const permanent = refusedForGood(err);
      mail = permanent ? 'refused' : 'failed';
      failure = { error: `mail${permanent ? ' refused' : ''}: ${reasonOf(err)}`, permanent };
    }
  }
  // Read back by the portal's basket (receiptNotificationState): one of MAIL_OUTCOMES.
  detail.mail = mail;
  if (what.push === 'switched_off') detail.push = 'switched_off';
  else if (message.attempt > 1 && (await pushedBefore(deps.db, message.id))) detail.push = 'sent_before';
  else
    detail.push = await pushToSubscriptions(
      deps.db,
      deps.push,
      what.push.subscriptions,
      what.push.body,
      stop,
    );
  if (failure === null) return { ok: true, detail };
  return { ok: false, error: failure.error, permanent: failure.permanent, detail };
}

/** Whether an earlier attempt of the message sent its push messages (its detail lists them). */
async function pushedBefore(db: Kysely<DB>, messageId: number): Promise<boolean> {
  return (await earlierAttemptDetails(db, messageId)).some((d) => Array.isArray(d.push));
}
