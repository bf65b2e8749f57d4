import type { Kysely } from 'kysely';
import { queueWelcomeMail } from '../cards/enrolment.service.js';
import { lockProfile } from '../cards/profile.store.js';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import { welcomeMailState } from './welcome-mail.store.js';

/**
 * Sends the customer's welcome mail (again) from their page (docs/decisions.md, "The welcome mail
 * sent again"): a new welcome mail, due now, to the address the profile has when it is sent. For a
 * customer never sent one as well (enrolled without it, at the till, or before they had an address).
 * Refused, changing nothing, while the last one is still on its way and when the customer has no
 * address. Two requests at once queue one mail: the profile's row is locked while the last mail is
 * read and the new one written.
 */
export async function sendWelcomeMailAgain(
  db: Kysely<DB>,
  customer: { merchantId: number; profileId: number },
  nowMs: number,
): Promise<void> {
  const { merchantId, profileId } = customer;
  await db.transaction().execute(async (trx) => {
    const profile = await lockProfile(trx, merchantId, profileId);
    if (!profile) throw new AppError('notFound', 'No customer under this id.');
    if (profile.email === null) throw new AppError('welcomeMailNoAddress');
    const last = await welcomeMailState(trx, merchantId, profileId);
    if (last?.kind === 'pending') throw new AppError('welcomeMailPending');
    await queueWelcomeMail(trx, merchantId, profileId, nowMs);
  });
}
