import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { BoundedCache } from '../shared/bounded-cache.js';
import type { Clock } from '../shared/clock.js';
import { isDatabaseTrouble } from '../shared/database-unavailable.js';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import { findDevKey, findTerminalCredentials } from './terminal.store.js';

/** A terminal (tracking unit) as its DevKey and trackingUnitId authenticate it. */
export interface AuthenticatedUnit {
  readonly devKeyId: number;
  readonly unitId: string;
  readonly merchantId: number;
  readonly outletId: number;
  readonly sortimentId: number | null;
  readonly activated: boolean;
  readonly checksumSecret: string;
  readonly currency: string;
  readonly timeZone: string;
  readonly rulesVersion: number;
  /** The terminal signs with SecurityToken-V2; the MD5 token is refused for it. */
  readonly requireSecurityTokenV2: boolean;
  /** The merchant requires a transactionId on addBalance and withdrawBalance. */
  readonly requireTransactionId: boolean;
}

/** What a till sends to name itself: its vendor's DevKey and its trackingUnitId. */
export interface UnitCredentials {
  readonly devKey: string;
  readonly unitId: string;
}

/** DevKeys are stored as their SHA-256 only (docs/decisions.md, "SecurityTokens and credentials"). */
export function devKeyHash(devKey: string): string {
  return createHash('sha256').update(devKey, 'utf8').digest('hex');
}

/** A terminal's checksumSecret: 16 random bytes, hex encoded. */
export function newChecksumSecret(): string {
  return randomBytes(16).toString('hex');
}

/**
 * Recently authenticated terminals, for the three hot paths whose one write statement re-checks
 * what the entry says: the basket upload (`write_basket`: DevKey bound and not revoked, terminal
 * active, outlet, sortiment, rules version), the MD5 balance booking (`post_transfer`: DevKey
 * bound and not revoked, terminal active and not deactivated, checksumSecret, the V2 and
 * transactionId settings; src/ledger/sql/post_transfer.sql) and the MD5 grant (`grant_basket`:
 * the same but the transactionId setting; src/baskets/sql/grant_basket.sql). An entry is only a
 * guess: a stale one makes the write do nothing and the request start over with a fresh lookup,
 * which answers 401 or 403 for a revoked key or a deactivated terminal. Every other operation looks
 * its terminal up afresh, since it would act on the guess before any statement could check it. So
 * no instance ever acts on a deactivated terminal, a revoked key or a rotated secret, and instances
 * keep no state that matters. One per app, built by the composition root (src/services.ts).
 */
export type TerminalCache = BoundedCache<string, AuthenticatedUnit>;

export function createTerminalCache(): TerminalCache {
  return new BoundedCache(20_000, 60_000);
}

const keyOf = (credentials: UnitCredentials) => `${credentials.devKey}\u0000${credentials.unitId}`;

/**
 * Authentication of tills: by DevKey alone, or by DevKey and trackingUnitId, looked up afresh or
 * (for the operations whose one statement re-checks it) remembered.
 */
export class TerminalAuth {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly clock: Clock,
    private readonly cache: TerminalCache,
  ) {}

  /** The DevKey's id: 401 / 1001 when unknown, 401 / 1043 when revoked. */
  async devKey(devKey: string): Promise<number> {
    const row = await findDevKey(this.db, devKeyHash(devKey));
    if (!row) throw new AppError('devKeyInvalid');
    if (row.revokedAt !== null) throw new AppError('devKeyRevoked');
    return row.id;
  }

  /**
   * DevKey and trackingUnitId, in one query. A unit is usable only with the DevKey it was
   * registered with; `requireActive` gives 403 for a unit the merchant has not activated. A
   * revoked DevKey (401 / 1043) and a deactivated terminal (403 / 1042) are refused on every
   * operation.
   */
  async lookup(
    credentials: UnitCredentials,
    options: { requireActive: boolean },
  ): Promise<AuthenticatedUnit> {
    const row = await findTerminalCredentials(
      this.db,
      devKeyHash(credentials.devKey),
      credentials.unitId,
      options.requireActive,
    );
    if (!row) throw new AppError('devKeyInvalid');
    if (row.refusal !== null) throw new AppError(row.refusal);
    if (
      row.unitId === null ||
      row.merchantId === null ||
      row.outletId === null ||
      row.checksumSecret === null ||
      row.currency === null ||
      row.timeZone === null ||
      row.rulesVersion === null ||
      row.activated === null ||
      row.requireSecurityTokenV2 === null ||
      row.requireTransactionId === null
    ) {
      throw new AppError('trackingUnitInvalid');
    }
    return {
      devKeyId: row.devKeyId,
      unitId: row.unitId,
      merchantId: row.merchantId,
      outletId: row.outletId,
      sortimentId: row.sortimentId,
      activated: row.activated,
      checksumSecret: row.checksumSecret,
      currency: row.currency.trim(),
      timeZone: row.timeZone,
      rulesVersion: row.rulesVersion,
      requireSecurityTokenV2: row.requireSecurityTokenV2,
      requireTransactionId: row.requireTransactionId,
    };
  }

  /** An active unit looked up afresh, and remembered for the operations that may start from it. */
  async lookupAndRemember(credentials: UnitCredentials): Promise<AuthenticatedUnit> {
    const nowMs = this.clock.nowMs();
    const unit = await this.lookup(credentials, { requireActive: true });
    this.cache.set(keyOf(credentials), unit, nowMs);
    return unit;
  }

  /**
   * A terminal for an operation whose one statement re-checks everything this answer relies on
   * (the basket upload, the balance booking): a remembered answer when there is one, else a fresh
   * lookup that is remembered. The caller must treat any refusal or stale outcome of a remembered
   * answer by forgetting it and authenticating afresh.
   */
  async remembered(credentials: UnitCredentials): Promise<{ unit: AuthenticatedUnit; remembered: boolean }> {
    const cached = this.rememberedNow(credentials);
    if (cached) return { unit: cached, remembered: true };
    return { unit: await this.lookupAndRemember(credentials), remembered: false };
  }

  /**
   * The remembered answer alone, without waiting for anything (undefined: none, or too old): what
   * `remembered` answers first, for a caller that can go on in the same turn when there is one.
   * The same guess with the same duty: its write re-checks it.
   */
  rememberedNow(credentials: UnitCredentials): AuthenticatedUnit | undefined {
    return this.cache.get(keyOf(credentials), this.clock.nowMs());
  }

  /**
   * An operation whose one write statement re-checks the terminal it acts for (the MD5 balance
   * booking, the MD5 grant), started from a remembered answer when `startFromRemembered`. Anything
   * else than success on a remembered answer (a refusal, a wrong token, the write finding the
   * terminal changed) is decided again on a fresh lookup, so a revoked key, a deactivated terminal
   * or a rotated secret holds at once; a fresh answer's refusal stands. A SecurityToken-V2 request
   * spends its signature, so its caller checks it once, on a fresh lookup (`startFromRemembered`
   * false). The database's own trouble (a balance another session held past the writer's wait, a
   * statement past its limit, a full disk, a lost connection) is not the terminal's doing: it
   * answers at once, so that the till waits once (docs/decisions.md, "A row locked for long").
   */
  async onRemembered<T>(
    credentials: UnitCredentials,
    startFromRemembered: boolean,
    act: (unit: AuthenticatedUnit, remembered: boolean) => Promise<T>,
    terminalChanged: (err: unknown) => boolean,
  ): Promise<T> {
    if (startFromRemembered) {
      const first = await this.remembered(credentials);
      try {
        return await act(first.unit, first.remembered);
      } catch (err) {
        if ((!first.remembered && !terminalChanged(err)) || isDatabaseTrouble(err)) throw err;
        this.forget(credentials);
      }
    }
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        return await act(await this.lookup(credentials, { requireActive: true }), false);
      } catch (err) {
        if (!terminalChanged(err)) throw err;
      }
    }
    throw new AppError('unavailable', 'The terminal changed during the operation; repeat it.');
  }

  forget(credentials: UnitCredentials): void {
    this.cache.delete(keyOf(credentials));
  }

  /**
   * How an operation that started from a remembered answer looks its terminal up anew when its
   * write finds that answer stale (the basket upload's `TerminalLookup`).
   */
  freshLookup(credentials: UnitCredentials): { lookup(): Promise<AuthenticatedUnit>; forget(): void } {
    return {
      lookup: () => this.lookupAndRemember(credentials),
      forget: () => this.forget(credentials),
    };
  }
}
