import type { Kysely } from 'kysely';
import type { Language } from '../receipts/receipt-text.js';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import { lockProfile, setProfileDetails } from './profile.store.js';

/**
 * A portal user sets a customer's name and the language of their receipts and mails
 * (docs/decisions.md, "A customer's name and language changed in the portal"): both as given, a
 * name left out or blank removing it. A customer keeps a name or an e-mail address: removing the
 * name of one without an address is refused and changes nothing.
 */
export async function changeProfileDetails(
  db: Kysely<DB>,
  change: { merchantId: number; profileId: number; fullName: string | null; language: Language | null },
): Promise<{ changed: boolean }> {
  const fullName = change.fullName?.trim() || null;
  return db.transaction().execute(async (trx) => {
    const profile = await lockProfile(trx, change.merchantId, change.profileId);
    if (!profile) throw new AppError('notFound', 'No customer under this id.');
    if (profile.full_name === fullName && profile.language === change.language) return { changed: false };
    if (fullName === null && profile.email === null && profile.full_name !== null) {
      throw new AppError('refused', 'A customer needs a name or an e-mail address.', {
        details: { field: 'fullName' },
      });
    }
    await setProfileDetails(trx, { ...change, fullName });
    return { changed: true };
  });
}
