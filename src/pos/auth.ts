import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { AppError } from '../shared/errors.js';
import { cachedUnit, rememberUnit } from './unit-cache.js';

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
    .select('id')
    .where('dev_key', '=', devKey)
    .executeTakeFirst();
  if (!row) throw new AppError('devKeyInvalid');
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
 * registered with; `requireActive` gives 403 for a unit the merchant has not activated.
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
    .where('dk.dev_key', '=', credentials.devKey)
    .executeTakeFirst();
  if (!row) throw new AppError('devKeyInvalid');
  if (
    row.unitId === null ||
    row.merchantId === null ||
    row.outletId === null ||
    row.checksumSecret === null ||
    row.currency === null ||
    row.timeZone === null ||
    row.rulesVersion === null ||
    row.activated === null
  ) {
    throw new AppError('trackingUnitInvalid');
  }
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
 * An active unit for operations that rely only on what never changes once true: the unit exists,
 * is bound to this DevKey, is active, and belongs to its merchant (there is no deactivation).
 * A recent positive answer is reused; outlet, sortiment and rules version must not be taken
 * from it (the basket upload re-checks those in its write).
 */
export async function authenticateActiveUnit(
  ctx: AppContext,
  request: FastifyRequest,
): Promise<AuthenticatedUnit> {
  const credentials = unitCredentials(request);
  const nowMs = ctx.clock.nowMs();
  const cached = cachedUnit(ctx, credentials.devKey, credentials.unitId, nowMs);
  if (cached) return cached;
  const unit = await lookupUnit(ctx, credentials, { requireActive: true });
  rememberUnit(ctx, credentials.devKey, unit, nowMs);
  return unit;
}

/** SecurityToken = lowercase hex MD5 of input + "qPnsS14" + checksumSecret. */
export function securityToken(input: string, checksumSecret: string): string {
  return createHash('md5').update(`${input}${SECURITY_SALT}${checksumSecret}`, 'utf8').digest('hex');
}

/**
 * Checks the SecurityToken header of an operation that moves value, case-insensitively and in
 * constant time. Missing or wrong: 401.
 */
export function verifySecurityToken(request: FastifyRequest, unit: AuthenticatedUnit, input: string): void {
  const given = header(request, 'SecurityToken');
  if (!given) throw new AppError('securityTokenInvalid');
  const expected = Buffer.from(securityToken(input, unit.checksumSecret), 'utf8');
  const actual = Buffer.from(given.toLowerCase(), 'utf8');
  if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
    throw new AppError('securityTokenInvalid');
  }
}
