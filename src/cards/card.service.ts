import { randomUUID } from 'node:crypto';
import type { Transaction } from 'kysely';
import {
  createAccount,
  ensureLiabilityAccount,
  findTransfer,
  setAccountStatus,
  type StoredTransfer,
  type TerminalFacts,
} from '../ledger/ledger.store.js';
import {
  type RefusalReason,
  cardCondition,
  cardStateName,
  checkDispose,
  parseBalanceAmount,
  planTopUp,
  planWithdrawal,
} from '../ledger/rules/posting-rules.js';
import type { TransferWriter } from '../ledger/transfer-write.store.js';
import { BoundedCache } from '../shared/bounded-cache.js';
import { AppError, type ErrorName } from '../shared/errors.js';
import { currencyExponent, minorToMajor } from '../shared/money.js';
import type { Deps } from '../store/deps.js';
import type { DB, TransferAuthorisation } from '../store/schema.js';
import {
  type CardView,
  findCard,
  insertCard,
  lockCardId,
  recordLockEvent,
  reRegisterCard,
  setCardState,
} from './card.store.js';

/** The few facts about the calling terminal the card operations need. */
export interface CardCaller {
  readonly merchantId: number;
  readonly currency: string;
  readonly unitId: string | null;
}

export type TokenState = ReturnType<typeof cardStateName>;

export interface TokenResponse {
  TokenId: string;
  TokenType: number;
  State: TokenState;
  Balance: number;
  CurrencyISO: string;
}

export interface BalanceResponse {
  TokenId: string;
  Balance: number;
  CurrencyISO: string;
  TransactionId: string;
}

const REFUSALS: Record<RefusalReason, ErrorName> = {
  invalid_amount: 'invalidAmount',
  card_unusable: 'cardLocked',
  insufficient_balance: 'insufficientBalance',
  above_maximum_balance: 'aboveMaximumBalance',
  balance_not_zero: 'balanceNotZero',
};

export function refusalError(reason: RefusalReason): AppError {
  return new AppError(REFUSALS[reason]);
}

/** tokentype of the URL: 0 or customer (default), 1 or gift. */
export function parseTokenType(text: string | undefined): 0 | 1 | null {
  if (text === undefined || text === '') return 0;
  const t = text.trim().toLowerCase();
  if (t === '0' || t === 'customer') return 0;
  if (t === '1' || t === 'gift') return 1;
  return null;
}

function tokenResponse(card: CardView, nowMs: number): TokenResponse {
  return {
    TokenId: card.tokenId,
    TokenType: card.tokenType,
    State: cardStateName(cardCondition(card, nowMs)),
    Balance: minorToMajor(card.balanceMinor, currencyExponent(card.currency)),
    CurrencyISO: card.currency,
  };
}

/** A released card is gone for every operation but registration: it answers like an unknown one. */
function known(card: CardView | null): CardView {
  if (!card || card.state === 'released') throw new AppError('cardUnknown');
  return card;
}

/**
 * Registers a card id, or registers a released id anew (with a fresh, empty account). An id that
 * is registered, locked or expired answers 13001.
 */
export async function registerCard(
  { db, clock }: Deps,
  caller: CardCaller,
  tokenId: string,
  tokenType: 0 | 1,
  expiresAtMs: number | null,
): Promise<TokenResponse> {
  const nowMs = clock.nowMs();
  await ensureLiabilityAccount(db, caller.merchantId, caller.currency);
  const card = await db
    .transaction()
    .execute((trx) => registerInTransaction(trx, caller, tokenId, tokenType, expiresAtMs, nowMs));
  return tokenResponse(card, nowMs);
}

/** The registration step shared with linking a new card to a profile. */
export async function registerInTransaction(
  trx: Transaction<DB>,
  caller: CardCaller,
  tokenId: string,
  tokenType: 0 | 1,
  expiresAtMs: number | null,
  nowMs: number,
): Promise<CardView> {
  const existing = await lockCardId(trx, caller.merchantId, tokenId);
  if (existing && existing.state !== 'released') throw new AppError('cardRegistered');
  const accountId = await createAccount(trx, caller.merchantId, 'card', caller.currency);
  const registration = { merchantId: caller.merchantId, tokenId, tokenType, expiresAtMs, accountId, nowMs };
  if (existing) {
    await reRegisterCard(trx, existing.id, registration);
  } else if (!(await insertCard(trx, registration))) {
    // A concurrent registration of the same id won.
    throw new AppError('cardRegistered');
  }
  const card = await findCard(trx, caller.merchantId, tokenId);
  if (!card) throw new Error('registered card not found');
  return card;
}

/**
 * Lock: the card and its own account cannot be used until an owner unlocks it in the merchant
 * portal (card-unlock.service.ts; the POS has no unlock); its balance stays where it is. Who locked
 * it (the portal user, else the till), when and why is recorded. Locking a locked card answers its
 * state again and records nothing (a retried lock succeeds).
 */
export async function lockCard(
  { db, clock }: Deps,
  caller: CardCaller,
  tokenId: string,
  by: { readonly portalUserId: number | null; readonly reason?: string | null } = { portalUserId: null },
): Promise<TokenResponse> {
  const nowMs = clock.nowMs();
  const card = await db.transaction().execute(async (trx) => {
    const c = known(await findCard(trx, caller.merchantId, tokenId, { forUpdate: true }));
    if (c.state !== 'locked') {
      await recordLockEvent(
        trx,
        caller.merchantId,
        c.cardId,
        'lock',
        { ...by, trackingUnitId: caller.unitId },
        nowMs,
      );
      await setCardState(trx, c.cardId, 'locked', nowMs);
      await setAccountStatus(trx, c.ownAccountId, 'closed');
    }
    return known(await findCard(trx, caller.merchantId, tokenId));
  });
  return tokenResponse(card, nowMs);
}

/**
 * Dispose releases the card: detached from its profile (points and the profile's balance stay
 * with the profile), its own account closed. The card's own balance must be zero (13005).
 */
export async function disposeCard(
  { db, clock }: Deps,
  caller: CardCaller,
  tokenId: string,
): Promise<TokenResponse> {
  const nowMs = clock.nowMs();
  return db.transaction().execute(async (trx) => {
    const c = known(await findCard(trx, caller.merchantId, tokenId, { forUpdate: true }));
    const check = checkDispose({ condition: cardCondition(c, nowMs), ownBalanceMinor: c.ownBalanceMinor });
    if (!check.ok) throw refusalError(check.reason);
    await setCardState(trx, c.cardId, 'released', nowMs);
    await setAccountStatus(trx, c.ownAccountId, 'closed');
    return {
      TokenId: c.tokenId,
      TokenType: c.tokenType,
      State: 'released' as const,
      Balance: 0,
      CurrencyISO: c.currency,
    };
  });
}

export type BalanceOperation = 'top_up' | 'withdrawal';

/**
 * The terminal changed after it was authenticated (revoked, deactivated, secret rotated, settings
 * changed): nothing was booked, and the caller must authenticate afresh.
 */
export class TerminalChanged extends Error {
  constructor() {
    super('the terminal changed after its authentication');
  }
}

/** What authorised a balance change: recorded with its ledger transfer. */
export interface BookingAuthorisation {
  readonly by: TransferAuthorisation;
  readonly sha256: string | null;
}

/** How often a posting whose guard failed is decided again on fresh figures. */
const MAX_ATTEMPTS = 100;

/**
 * Card views by merchant and id, so that a withdrawal usually costs one statement: the plan is
 * made on the cached view, and the posting statement checks every fact it relied on (card usable,
 * account, balance guard). A refusal is never answered from the cache: it is decided again on a
 * fresh read. Safe with any number of instances, since the database is the arbiter. One per app,
 * built by the composition root (src/services.ts).
 */
export type CardCache = BoundedCache<string, CardView>;

export function createCardCache(): CardCache {
  return new BoundedCache(10_000);
}

/**
 * What the card use cases work with: the database, the clock, the app's card cache and the
 * writer that books single top-ups and withdrawals with group commit.
 */
export interface CardDeps extends Deps {
  readonly cache: CardCache;
  readonly transfers: TransferWriter;
}

/**
 * addBalance / withdrawBalance. The amount is checked first (13006). With a transactionId, a
 * repeat books nothing and answers what the first booking answered; the same id for another
 * card, amount or operation answers 13007. The decision is made by the pure posting rules on
 * the figures read; the store books it only if those figures still hold, else it is made again.
 */
export async function changeBalance(
  deps: CardDeps,
  caller: CardCaller,
  operation: BalanceOperation,
  tokenId: string,
  amountText: string,
  transactionId: string | undefined,
  authorisation: BookingAuthorisation,
  terminal: (TerminalFacts & { readonly remembered: boolean }) | null = null,
): Promise<BalanceResponse> {
  const { db, cache } = deps;
  const nowMs = deps.clock.nowMs();
  const amount = parseBalanceAmount(amountText, currencyExponent(caller.currency));
  if (!amount.ok) throw refusalError(amount.reason);
  const amountMinor = amount.amountMinor;

  const replay = (t: StoredTransfer): BalanceResponse => {
    if (t.kind !== operation || t.tokenId !== tokenId || t.amountMinor !== amountMinor) {
      throw new AppError('transactionIdReused');
    }
    return {
      TokenId: tokenId,
      Balance: minorToMajor(t.balanceAfterMinor, currencyExponent(t.currency)),
      CurrencyISO: t.currency,
      TransactionId: t.transactionId,
    };
  };

  if (transactionId !== undefined) {
    const earlier = await findTransfer(db, caller.merchantId, transactionId);
    // A remembered terminal has not been checked by any statement yet: no answer without that.
    if (earlier && terminal?.remembered) throw new TerminalChanged();
    if (earlier) return replay(earlier);
  }
  const txId = transactionId ?? randomUUID();

  const key = `${caller.merchantId}\u0000${tokenId}`;
  let card = cache.get(key);
  let fresh = false;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    if (!card) {
      const found = await findCard(db, caller.merchantId, tokenId);
      if (!found || found.state === 'released') {
        cache.delete(key);
        throw new AppError('cardUnknown');
      }
      card = found;
      fresh = true;
    }
    const input = {
      condition: cardCondition(card, nowMs),
      account: {
        accountId: card.accountId,
        balanceMinor: card.balanceMinor,
        open: card.accountOpen,
        maxBalanceMinor: card.maxBalanceMinor,
      },
      liabilityAccountId: card.liabilityAccountId,
      amountMinor,
    };
    const plan = operation === 'top_up' ? planTopUp(input) : planWithdrawal(input);
    if (!plan.ok) {
      if (fresh) {
        cache.set(key, card);
        throw refusalError(plan.reason);
      }
      card = undefined;
      continue;
    }
    const posted = await deps.transfers.post({
      plan: plan.transfer,
      meta: {
        merchantId: caller.merchantId,
        transactionId: txId,
        currency: card.currency,
        cardId: card.cardId,
        tokenId,
        trackingUnitId: caller.unitId,
        nowMs,
        authorisation,
        terminal,
      },
      card: { cardId: card.cardId, liabilityAccountId: card.liabilityAccountId },
    });
    if (posted.status === 'posted') {
      cache.set(key, { ...card, balanceMinor: posted.balanceAfterMinor });
      return {
        TokenId: tokenId,
        Balance: minorToMajor(posted.balanceAfterMinor, currencyExponent(card.currency)),
        CurrencyISO: card.currency,
        TransactionId: txId,
      };
    }
    if (posted.status === 'terminal_changed') throw new TerminalChanged();
    // The card's figures may be remembered ones: decide on a fresh read before refusing.
    if (posted.status === 'held_by_reservations' && fresh) throw new AppError('insufficientBalance');
    if (posted.status === 'duplicate') {
      const first = await findTransfer(db, caller.merchantId, txId);
      if (!first) throw new Error('duplicate transaction id without a transfer');
      return replay(first);
    }
    // The figures moved under the plan: decide again on a fresh read.
    card = undefined;
  }
  throw new AppError('unavailable', 'The card is too busy; retry with the same transactionId.');
}
