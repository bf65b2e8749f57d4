import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { AppError } from '../shared/errors.js';
import { type TokenAuthorisation, verifySecurityTokenV2 } from './security-token-v2.js';
import { cachedUnit, forgetUnit, rememberUnit } from './unit-cache.js';

/** The SecurityToken constant of the POS interface v3 (Authentication, step 3). */
const SECURITY_SALT = 'qPnsS14';

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

/** DevKeys are stored as their SHA-256 only (docs/decisions.md). */
export function devKeyHash(devKey: string): string {
  return createHash('sha256').update(devKey, 'utf8').digest('hex');
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name.toLowerCase()];
  const value = Array.isArray(v) ? v[0] : v;
  return value === undefined || value === '' ? undefined : value;
}

/** DevKey alone: merchant info, create outlet, registration. */
export async function authenticateDevKey(ctx: AppContext, request: FastifyRequest): Promise<number> {
  const devKey = header(request, 'DevKey');
  if (!devKey) throw new AppError('devKeyInvalid');
  const row = await ctx.database.db
    .selectFrom('dev_keys')
    .select(['id', 'revoked_at'])
    .where('key_sha256', '=', devKeyHash(devKey))
    .executeTakeFirst();
  if (!row) throw new AppError('devKeyInvalid');
  if (row.revoked_at !== null) throw new AppError('devKeyRevoked');
  return row.id;
}

export interface UnitCredentials {
  readonly devKey: string;
  readonly unitId: string;
}

/** The DevKey and trackingUnitId headers; missing ones answer 401 (1001, 1002). */
export function unitCredentials(request: FastifyRequest): UnitCredentials {
  const devKey = header(request, 'DevKey');
  if (!devKey) throw new AppError('devKeyInvalid');
  const unitId = header(request, 'trackingUnitId');
  if (!unitId) throw new AppError('trackingUnitInvalid');
  return { devKey, unitId };
}

/**
 * DevKey and trackingUnitId, in one query. A unit is usable only with the DevKey it was
 * registered with; `requireActive` gives 403 for a unit the merchant has not activated. A revoked
 * DevKey (401 / 1043) and a deactivated terminal (403 / 1042) are refused on every operation.
 */
export async function lookupUnit(
  ctx: AppContext,
  credentials: UnitCredentials,
  options: { requireActive: boolean },
): Promise<AuthenticatedUnit> {
  const row = await ctx.database.db
    .selectFrom('dev_keys as dk')
    .leftJoin('tracking_units as tu', (join) =>
      join.on('tu.id', '=', credentials.unitId).on(sql<boolean>`tu.dev_key_id = dk.id`),
    )
    .leftJoin('merchants as m', 'm.id', 'tu.merchant_id')
    .select([
      'dk.id as devKeyId',
      'dk.revoked_at as devKeyRevokedAt',
      'tu.deactivated_at as deactivatedAt',
      'tu.require_security_token_v2 as requireSecurityTokenV2',
      'm.require_transaction_id as requireTransactionId',
      'tu.id as unitId',
      'tu.merchant_id as merchantId',
      'tu.outlet_id as outletId',
      'tu.sortiment_id as sortimentId',
      'tu.activated as activated',
      'tu.checksum_secret as checksumSecret',
      'm.currency as currency',
      'm.time_zone as timeZone',
      'm.rules_version as rulesVersion',
    ])
    .where('dk.key_sha256', '=', devKeyHash(credentials.devKey))
    .executeTakeFirst();
  if (!row) throw new AppError('devKeyInvalid');
  if (row.devKeyRevokedAt !== null) throw new AppError('devKeyRevoked');
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
  if (row.deactivatedAt !== null) throw new AppError('trackingUnitDeactivated');
  if (options.requireActive && !row.activated) throw new AppError('trackingUnitInactive');
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

/** DevKey and trackingUnitId headers, looked up. */
export async function authenticateUnit(
  ctx: AppContext,
  request: FastifyRequest,
  options: { requireActive: boolean },
): Promise<AuthenticatedUnit> {
  return lookupUnit(ctx, unitCredentials(request), options);
}

/**
 * An active unit, looked up afresh on every call: the operator can deactivate a terminal, revoke
 * its DevKey or rotate its checksumSecret at any moment, and no instance may act on an answer
 * from before that (docs/decisions.md, "SecurityTokens and credentials"). Only the basket upload,
 * the MD5 balance booking and the MD5 grant start from a remembered answer, because their one
 * write statement re-checks it (`rememberedUnit`, `onRememberedUnit`).
 */
export async function authenticateActiveUnit(
  ctx: AppContext,
  request: FastifyRequest,
): Promise<AuthenticatedUnit> {
  return lookupUnit(ctx, unitCredentials(request), { requireActive: true });
}

/**
 * A terminal for an operation whose one statement re-checks everything this answer relies on
 * (the balance booking, `post_transfer` of migration 0009): a remembered answer when there is
 * one, else a fresh lookup that is remembered. The caller must treat any refusal or stale
 * outcome of a remembered answer by authenticating afresh (tokens.routes.ts).
 */
export async function rememberedUnit(
  ctx: AppContext,
  credentials: UnitCredentials,
): Promise<{ unit: AuthenticatedUnit; remembered: boolean }> {
  const nowMs = ctx.clock.nowMs();
  const cached = cachedUnit(ctx, credentials.devKey, credentials.unitId, nowMs);
  if (cached) return { unit: cached, remembered: true };
  const unit = await lookupUnit(ctx, credentials, { requireActive: true });
  rememberUnit(ctx, credentials.devKey, unit, nowMs);
  return { unit, remembered: false };
}

/**
 * An operation whose one write re-checks the terminal it acts for (docs/decisions.md "Hot paths in
 * one round trip"), started on the caller as the POS hook authenticated it, perhaps from a
 * remembered answer. Anything else than success on a remembered answer (a refusal, a wrong token,
 * the write finding the terminal changed) is decided again on a fresh lookup, so a revoked key, a
 * deactivated terminal or a rotated secret holds at once. A SecurityToken-V2 request spends its
 * signature, so it is checked once, on a fresh lookup.
 */
export async function onRememberedUnit<T>(
  ctx: AppContext,
  request: FastifyRequest,
  caller: {
    readonly unit: AuthenticatedUnit;
    readonly credentials: UnitCredentials;
    readonly fresh: boolean;
  },
  act: (unit: AuthenticatedUnit, remembered: boolean) => Promise<T>,
  terminalChanged: (err: unknown) => boolean,
): Promise<T> {
  const { credentials } = caller;
  if (request.headers['securitytoken-v2'] === undefined) {
    try {
      return await act(caller.unit, !caller.fresh);
    } catch (err) {
      if (caller.fresh && !terminalChanged(err)) throw err;
      forgetUnit(ctx, credentials.devKey, credentials.unitId);
    }
  }
  for (let attempt = 0; attempt < 3; attempt += 1) {
    try {
      return await act(await lookupUnit(ctx, credentials, { requireActive: true }), false);
    } catch (err) {
      if (!terminalChanged(err)) throw err;
    }
  }
  throw new AppError('unavailable', 'The terminal changed during the operation; repeat it.');
}

/** SecurityToken = lowercase hex MD5 of input + "qPnsS14" + checksumSecret. */
export function securityToken(input: string, checksumSecret: string): string {
  return createHash('md5').update(`${input}${SECURITY_SALT}${checksumSecret}`, 'utf8').digest('hex');
}

/**
 * Checks what authorises an operation that moves value, and returns it so that the booking can
 * record it. A `SecurityToken-V2` header is checked as such (security-token-v2.ts) on any
 * terminal; a terminal that requires it gets 401 / 1044 without one. Otherwise the MD5
 * SecurityToken of the documents, compared case-insensitively and in constant time; missing or
 * wrong: 401 / 1003.
 */
export async function verifySecurityToken(
  request: FastifyRequest,
  unit: AuthenticatedUnit,
  input: string,
): Promise<TokenAuthorisation> {
  const v2 = header(request, 'SecurityToken-V2');
  if (v2 !== undefined) return verifySecurityTokenV2(request.server.ctx, request, unit, v2);
  if (unit.requireSecurityTokenV2) throw new AppError('securityTokenV2Required');
  const given = header(request, 'SecurityToken');
  if (!given) throw new AppError('securityTokenInvalid');
  const expected = Buffer.from(securityToken(input, unit.checksumSecret), 'utf8');
  const actual = Buffer.from(given.toLowerCase(), 'utf8');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw new AppError('securityTokenInvalid');
  }
  return { scheme: 'md5', sha256: createHash('sha256').update(actual).digest('hex') };
}
