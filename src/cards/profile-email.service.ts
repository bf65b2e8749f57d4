import type { Kysely } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import { changeProfileEmailRow, lockProfile } from './profile.store.js';

/**
 * An owner corrects a customer's e-mail address (docs/decisions.md, "A customer's e-mail address
 * corrected"): the address is trimmed, an empty one removes it; the change is recorded with who made
 * it. Giving the address the profile already has changes nothing and records nothing.
 */
export async function changeProfileEmail(
  db: Kysely<DB>,
  change: {
    merchantId: number;
    profileId: number;
    portalUserId: number;
    email: string | null;
    nowMs: number;
  },
): Promise<{ changed: boolean }> {
  const email = change.email?.trim() || null;
  return db.transaction().execute(async (trx) => {
    const profile = await lockProfile(trx, change.merchantId, change.profileId);
    if (!profile) throw new AppError('notFound', 'No customer under this id.');
    if (profile.email === email) return { changed: false };
    await changeProfileEmailRow(trx, {
      merchantId: change.merchantId,
      profileId: change.profileId,
      portalUserId: change.portalUserId,
      oldEmail: profile.email,
      newEmail: email,
      at: new Date(change.nowMs),
    });
    return { changed: true };
  });
}
