import { setTimeout as sleep } from 'node:timers/promises';
import type { Mailer, OutgoingMail } from './mailer.js';

/**
 * Whether the mail server refused this mail for good: a permanent answer (5xx) to the recipient
 * or to the message itself (an address that does not exist, a message it will never take). A
 * permanent answer to the service's own sender or sign-in is the operator's to mend, and every
 * mail waiting meanwhile is to go out once it is mended: tried again.
 */
export function refusedForGood(err: unknown): boolean {
  const e = err as { permanent?: unknown; command?: unknown } | null;
  return e?.permanent === true && (e.command === 'RCPT TO' || e.command === 'DATA');
}

/** The waits before a link mail's second and third try. */
export const LINK_MAIL_RETRY_MS: readonly number[] = [2_000, 10_000];

/**
 * Sends a mail with a link to sign in or set a password (docs/decisions.md, "Links by mail"),
 * which no outbox keeps (its token is stored hashed only): a send that failed for now (a server
 * that could not be reached, a temporary answer) is tried twice more, after 2 and 10 s, while the
 * service runs (`stop` ends the waits and the sends). A refusal for good is not tried again.
 * Rejects with the last failure.
 */
export async function sendLinkMail(
  mailer: Mailer,
  mail: OutgoingMail,
  stop: AbortSignal,
  retryMs: readonly number[] = LINK_MAIL_RETRY_MS,
): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await mailer.send(mail, stop);
      return;
    } catch (err) {
      const wait = retryMs[attempt];
      if (wait === undefined || refusedForGood(err) || stop.aborted) throw err;
      await sleep(wait, undefined, { signal: stop }).catch(() => {
        throw err;
      });
    }
  }
}
