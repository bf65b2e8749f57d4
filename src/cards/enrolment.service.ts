import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import { createAccount, ensureLiabilityAccount } from '../ledger/ledger.store.js';
import { enqueueOutbox } from '../outbox/outbox.store.js';
import type { Language } from '../receipts/receipt-text.js';
import { AppError } from '../shared/errors.js';
import type { Deps } from '../store/deps.js';
import type { DB } from '../store/schema.js';
import { linkInTransaction, linkToken, type LinkedToken } from './profile.service.js';
import {
  insertProfile,
  lockedProfileWithEmail,
  profileAccount,
  profileByRequest,
  profileCards,
} from './profile.store.js';

/** The outbox topic of the welcome mail (docs/decisions.md, "The welcome mail"). */
export const WELCOME_MAIL = 'profile.welcome_mail';
export interface WelcomeMailEvent {
  readonly profileId: number;
}

/**
 * Queues the welcome mail of a customer in the caller's transaction, due at `nowMs`: at their
 * enrolment, or sent again from their page ("The welcome mail sent again"). The dispatcher is
 * nudged by the caller after the commit.
 */
export async function queueWelcomeMail(
  trx: Kysely<DB>,
  merchantId: number,
  profileId: number,
  nowMs: number,
): Promise<void> {
  const event: WelcomeMailEvent = { profileId };
  await enqueueOutbox(trx, {
    merchantId,
    topic: WELCOME_MAIL,
    payload: { ...event },
    notBefore: new Date(nowMs),
    createdAt: new Date(nowMs),
  });
}

/** What the portal's enrolment form gives: a name or an address (or both), and a card to link. */
export interface Enrolment {
  fullName: string | null;
  email: string | null;
  language: Language | null;
  tokenId: string | null;
  /** Mail the customer a welcome with the way to their own page (when they have an address). */
  welcomeMail: boolean;
  /** Made once per form shown: the form sent twice answers the first customer. */
  requestId: string;
  portalUserId: number;
}

/** Thrown inside the transaction when the request's id was taken while it ran: rolled back, then answered as a repeat. */
class SentTwice extends Error {}

/**
 * A merchant's portal user enrols a customer (docs/decisions.md, "Enrolling a customer in the
 * portal"): the profile, its balance account and, when a card is given, the card linked to it,
 * in one transaction, so a refused card leaves no customer behind. An address another customer of
 * the merchant has already is refused (409 profile_email_taken, naming that customer): one address
 * is one customer's sign-in and receipts. The same request sent again answers the customer it
 * made; the same request id with other fields is 409 request_id_reused. A welcome mail asked for
 * is queued with the customer, so the request sent twice mails once ("The welcome mail").
 */
export async function enrolCustomer(
  deps: Deps,
  merchant: { id: number; currency: string },
  input: Enrolment,
): Promise<number> {
  const fullName = input.fullName?.trim() || null;
  const email = input.email?.trim() || null;
  const tokenId = input.tokenId?.trim() || null;
  if (fullName === null && email === null) {
    throw new AppError('refused', 'A customer needs a name or an e-mail address.', {
      details: { field: 'fullName' },
    });
  }
  const requestId = input.requestId.toLowerCase();
  const asked = { fullName, email, language: input.language, tokenId, welcomeMail: input.welcomeMail };
  const earlier = await repeated(deps, merchant.id, requestId, asked);
  if (earlier !== null) return earlier;
  await ensureLiabilityAccount(deps.db, merchant.id, merchant.currency);
  const nowMs = deps.clock.nowMs();
  try {
    return await deps.db.transaction().execute(async (trx) => {
      if (email !== null) {
        const other = await lockedProfileWithEmail(trx, merchant.id, email);
        if (other !== null) {
          // The same request sent at the same moment made it while this one waited for the address.
          if (await profileByRequest(trx, merchant.id, requestId)) throw new SentTwice();
          throw new AppError('portalProfileEmailTaken', undefined, { details: { profileId: other } });
        }
      }
      const accountId = await createAccount(trx, merchant.id, 'profile', merchant.currency);
      const id = await insertProfile(trx, {
        merchantId: merchant.id,
        accountId,
        fullName,
        email,
        language: input.language,
        partnerUserId: null,
        isTopUpAllowed: true,
        isChargeAllowed: true,
        maxAmountMinor: null,
        maxSingleTopUpMinor: null,
        minSingleTopUpMinor: null,
        maxMonthlyTopUpMinor: null,
        enrolment: { portalUserId: input.portalUserId, requestId, fingerprint: fingerprintOf(asked) },
      });
      if (id === null) throw new SentTwice();
      if (tokenId !== null) {
        const profile = { profileId: id, merchantId: merchant.id, accountId, currency: merchant.currency };
        await linkInTransaction(trx, profile, tokenId, null, nowMs, 'portal');
      }
      if (input.welcomeMail && email !== null) await queueWelcomeMail(trx, merchant.id, id, nowMs);
      return id;
    });
  } catch (err) {
    if (!(err instanceof SentTwice)) throw err;
    const first = await repeated(deps, merchant.id, requestId, asked);
    if (first === null) throw new Error('an enrolment request id taken by no customer');
    return first;
  }
}

/** What an enrolment request asks, its fields trimmed as they are kept. */
interface Asked {
  fullName: string | null;
  email: string | null;
  language: string | null;
  tokenId: string | null;
  welcomeMail: boolean;
}

/** A SHA-256 of what the request asked, kept with the customer it made (migration 0065). */
function fingerprintOf(asked: Asked): string {
  const fields = [asked.fullName, asked.email, asked.language, asked.tokenId, asked.welcomeMail];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex');
}

/**
 * The customer an earlier request of this id made, or null; the same id with other fields is
 * refused. The repeat is compared with what the first request asked, so a name corrected or a card
 * released since does not turn the form sent again into a refusal; a customer enrolled before the
 * requests were kept is compared with the customer as they are.
 */
async function repeated(
  { db }: Deps,
  merchantId: number,
  requestId: string,
  asked: Asked,
): Promise<number | null> {
  const row = await profileByRequest(db, merchantId, requestId);
  if (!row) return null;
  let same: boolean;
  if (row.portal_request_fingerprint !== null) same = row.portal_request_fingerprint === fingerprintOf(asked);
  else {
    const cards = asked.tokenId === null ? [] : await profileCards(db, merchantId, row.id);
    same =
      row.full_name === asked.fullName &&
      row.email === asked.email &&
      row.language === asked.language &&
      (asked.tokenId === null || cards.some((c) => c.token_id === asked.tokenId));
  }
  if (!same) throw new AppError('portalRequestReused');
  return row.id;
}

/**
 * A portal user links a card to one of the merchant's customers (as the operator API's
 * POST /profiles/{id}/tokens does): a new id is registered as a customer card. A customer of
 * another merchant is unknown (404), as on every portal route.
 */
export async function linkCardInPortal(
  deps: Deps,
  merchantId: number,
  profileId: number,
  tokenId: string,
): Promise<LinkedToken> {
  const head = await profileAccount(deps.db, profileId);
  if (!head || head.merchantId !== merchantId) throw new AppError('notFound', 'No customer under this id.');
  return linkToken(deps, profileId, tokenId.trim(), null, 'portal');
}
