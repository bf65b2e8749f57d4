import type { AuthenticatedUnit, TerminalAuth, UnitCredentials } from '../merchants/terminal.js';
import type { TokenAuthorisation } from '../merchants/terminal-signature.js';
import { AppError } from '../shared/errors.js';
import { parseInstant } from '../shared/time.js';
import type { Deps } from '../store/deps.js';
import {
  type BalanceOperation,
  type BalanceResponse,
  type CardCaller,
  type CardDeps,
  TerminalChanged,
  type TokenResponse,
  changeBalance,
  parseTokenType,
  registerCard,
} from './card.service.js';

/**
 * What the tills do with cards, in the terms of the POS interface v3: register a card with the
 * `tokentype` and `expiresAt` of the URL, and book balance authorised by a SecurityToken.
 */

/** What the tills' balance bookings work with: the cards' deps and the terminals. */
export interface TillBookingDeps {
  readonly cards: CardDeps;
  readonly terminals: TerminalAuth;
}

/** An addBalance or withdrawBalance as the till sent it. */
export interface TillBooking {
  readonly operation: BalanceOperation;
  readonly tokenId: string;
  /** Exactly as in the URL (decoded): the MD5 token covers this text. */
  readonly amount: string;
  readonly transactionId: string | undefined;
}

/**
 * Checks the token of a booking against the terminal it was made for, with the token input of
 * that terminal's merchant (`balanceTokenInput`); answers what authorised it.
 */
export type BookingAuthoriser = (unit: AuthenticatedUnit, tokenInput: string) => Promise<TokenAuthorisation>;

export function cardCaller(unit: AuthenticatedUnit): CardCaller {
  return { merchantId: unit.merchantId, currency: unit.currency, unitId: unit.unitId };
}

/**
 * Registers a card for the till: `tokentype` 0 or customer (default), 1 or gift; `expiresAt` an
 * ISO 8601 date-time (in the merchant's time zone without an offset) after which it is expired.
 */
export async function registerTillCard(
  deps: Deps,
  unit: AuthenticatedUnit,
  tokenId: string,
  query: { tokentype?: string | undefined; expiresAt?: string | undefined },
): Promise<TokenResponse> {
  const tokenType = parseTokenType(query.tokentype);
  if (tokenType === null) throw new AppError('invalidBody', 'tokentype must be 0, 1, customer or gift.');
  let expiresAtMs: number | null = null;
  if (query.expiresAt !== undefined && query.expiresAt !== '') {
    const instant = parseInstant(query.expiresAt, unit.timeZone);
    if (!instant) throw new AppError('invalidBody', 'expiresAt must be an ISO 8601 date-time.');
    expiresAtMs = instant.utcMs;
  }
  return registerCard(deps, cardCaller(unit), tokenId, tokenType, expiresAtMs);
}

/**
 * The MD5 SecurityToken input of addBalance and withdrawBalance: id + amount as in the URL. A
 * merchant that requires transactionIds makes it operation, id, amount and transactionId, each
 * on its own line (`addBalance\n4711\n12.50\ntill7-1`), so that a token seen once authorises
 * that one booking and nothing else: the same transactionId again books nothing, another one or
 * the other operation needs another token, and no grant or return token of a real bill number
 * fits (docs/decisions.md, "SecurityTokens and credentials"). Without a transactionId there:
 * 400 / 1041.
 */
export function balanceTokenInput(unit: AuthenticatedUnit, booking: TillBooking): string {
  const { tokenId, amount, transactionId } = booking;
  if (!unit.requireTransactionId) return `${tokenId}${amount}`;
  if (transactionId === undefined || transactionId === '') throw new AppError('transactionIdRequired');
  const name = booking.operation === 'top_up' ? 'addBalance' : 'withdrawBalance';
  return `${name}\n${tokenId}\n${amount}\n${transactionId}`;
}

/**
 * addBalance / withdrawBalance of a till, authorised and booked. An MD5-signed booking may start
 * from a remembered answer about its terminal (one statement per booking, the hot path of the
 * tills): the booking statement re-checks that answer, and anything else than a booking made on
 * it (a refusal, a wrong token, a changed terminal, the answer to a repeated transactionId) is
 * decided again on a fresh lookup, so a revoked key, a deactivated terminal or a rotated secret
 * holds at once. A SecurityToken-V2 booking spends its signature, so it is checked once, on a
 * fresh lookup (`startFromRemembered` false).
 */
export async function bookTillBalance(
  deps: TillBookingDeps,
  credentials: UnitCredentials,
  booking: TillBooking,
  authorise: BookingAuthoriser,
  startFromRemembered: boolean,
): Promise<BalanceResponse> {
  const book = async (unit: AuthenticatedUnit, remembered: boolean) => {
    const token = await authorise(unit, balanceTokenInput(unit, booking));
    return changeBalance(
      deps.cards,
      cardCaller(unit),
      booking.operation,
      booking.tokenId,
      booking.amount,
      booking.transactionId,
      { by: token.scheme, sha256: token.sha256 },
      {
        devKeyId: unit.devKeyId,
        checksumSecret: unit.checksumSecret,
        requireSecurityTokenV2: unit.requireSecurityTokenV2,
        requireTransactionId: unit.requireTransactionId,
        remembered,
      },
    );
  };
  return deps.terminals.onRemembered(
    credentials,
    startFromRemembered,
    book,
    (err) => err instanceof TerminalChanged,
  );
}
