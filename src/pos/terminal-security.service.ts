import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import { randomHex } from '../config.js';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import { devKeyHash } from './auth.js';

/**
 * What the operator (and later the merchant portal) can do to the credentials of the POS wire:
 * issue and revoke DevKeys, deactivate and activate terminals, rotate a terminal's checksumSecret,
 * switch a terminal to SecurityToken-V2, and require transactionIds for a merchant. Every change
 * takes effect on the next request on every instance: nothing of it is cached (auth.ts).
 */

export interface IssuedDevKey {
  readonly id: number;
  readonly devKey: string;
  readonly name: string;
}

/** A new DevKey: 32 random bytes, shown once; only its SHA-256 is stored. */
export async function issueDevKey(db: Kysely<DB>, name: string): Promise<IssuedDevKey> {
  const devKey = randomBytes(32).toString('base64url');
  const row = await db
    .insertInto('dev_keys')
    .values({ key_sha256: devKeyHash(devKey), name })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, devKey, name };
}

export interface DevKeyView {
  readonly id: number;
  readonly name: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

export async function listDevKeys(db: Kysely<DB>): Promise<DevKeyView[]> {
  const rows = await db
    .selectFrom('dev_keys')
    .select(['id', 'name', 'created_at', 'revoked_at'])
    .orderBy('id')
    .execute();
  return rows.map((r) => ({
    id: r.id,
    name: r.name,
    createdAt: r.created_at.toISOString(),
    revokedAt: r.revoked_at === null ? null : r.revoked_at.toISOString(),
  }));
}

/** Revocation is final; revoking a revoked key answers it again (its first revocation time). */
export async function revokeDevKey(db: Kysely<DB>, id: number, nowMs: number): Promise<DevKeyView> {
  await db
    .updateTable('dev_keys')
    .set({ revoked_at: new Date(nowMs) })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
  const r = await db
    .selectFrom('dev_keys')
    .select(['id', 'name', 'created_at', 'revoked_at'])
    .where('id', '=', id)
    .executeTakeFirst();
  if (!r) throw new AppError('notFound', 'No DevKey under this id.');
  return {
    id: r.id,
    name: r.name,
    createdAt: r.created_at.toISOString(),
    revokedAt: r.revoked_at === null ? null : r.revoked_at.toISOString(),
  };
}

export interface TerminalState {
  readonly trackingUnitId: string;
  readonly activated: boolean;
  readonly deactivated: boolean;
  readonly requireSecurityTokenV2: boolean;
}

async function terminalState(db: Kysely<DB>, unitId: string): Promise<TerminalState> {
  const row = await db
    .selectFrom('tracking_units')
    .select(['id', 'activated', 'deactivated_at', 'require_security_token_v2'])
    .where('id', '=', unitId)
    .executeTakeFirst();
  if (!row) throw new AppError('notFound', 'No terminal under this id.');
  return {
    trackingUnitId: row.id,
    activated: row.activated,
    deactivated: row.deactivated_at !== null,
    requireSecurityTokenV2: row.require_security_token_v2,
  };
}

/**
 * Activates a terminal (a new one, or one the operator deactivated), or deactivates it: a
 * deactivated terminal is refused on every operation (403 / 1042) until activated again.
 */
export async function setTerminalActive(
  db: Kysely<DB>,
  unitId: string,
  active: boolean,
  nowMs: number,
): Promise<TerminalState> {
  const now = new Date(nowMs);
  const updated = await db
    .updateTable('tracking_units')
    .set((eb) =>
      active
        ? {
            activated: true,
            activated_at: eb.fn.coalesce('activated_at', eb.val(now)),
            deactivated_at: null,
            updated_at: now,
          }
        : {
            activated: false,
            deactivated_at: eb.fn.coalesce('deactivated_at', eb.val(now)),
            updated_at: now,
          },
    )
    .where('id', '=', unitId)
    .returning('id')
    .executeTakeFirst();
  if (!updated) throw new AppError('notFound', 'No terminal under this id.');
  return terminalState(db, unitId);
}

/** Requires SecurityToken-V2 of a terminal (the MD5 token is then refused), or allows MD5 again. */
export async function setTerminalSecurity(
  db: Kysely<DB>,
  unitId: string,
  settings: { requireSecurityTokenV2: boolean },
  nowMs: number,
): Promise<TerminalState> {
  const updated = await db
    .updateTable('tracking_units')
    .set({ require_security_token_v2: settings.requireSecurityTokenV2, updated_at: new Date(nowMs) })
    .where('id', '=', unitId)
    .returning('id')
    .executeTakeFirst();
  if (!updated) throw new AppError('notFound', 'No terminal under this id.');
  return terminalState(db, unitId);
}

/**
 * A new checksumSecret for a terminal, answered once: tokens made with the old one are refused
 * from the next request on, on every instance.
 */
export async function rotateChecksumSecret(
  db: Kysely<DB>,
  unitId: string,
  nowMs: number,
): Promise<{ trackingUnitId: string; checksumSecret: string }> {
  const checksumSecret = randomHex(16);
  const now = new Date(nowMs);
  const updated = await db
    .updateTable('tracking_units')
    .set({ checksum_secret: checksumSecret, checksum_secret_rotated_at: now, updated_at: now })
    .where('id', '=', unitId)
    .returning('id')
    .executeTakeFirst();
  if (!updated) throw new AppError('notFound', 'No terminal under this id.');
  return { trackingUnitId: updated.id, checksumSecret };
}

export interface MerchantSecurity {
  readonly serviceUserName: string;
  readonly requireTransactionId: boolean;
}

/** The merchant's security settings; `changes` omitted reads them. */
export async function merchantSecurity(
  db: Kysely<DB>,
  serviceUserName: string,
  changes: { requireTransactionId?: boolean } = {},
): Promise<MerchantSecurity> {
  if (changes.requireTransactionId !== undefined) {
    await db
      .updateTable('merchants')
      .set({ require_transaction_id: changes.requireTransactionId })
      .where('service_user_name', '=', serviceUserName)
      .execute();
  }
  const row = await db
    .selectFrom('merchants')
    .select(['service_user_name', 'require_transaction_id'])
    .where('service_user_name', '=', serviceUserName)
    .executeTakeFirst();
  if (!row) throw new AppError('notFound', `No merchant "${serviceUserName}".`);
  return { serviceUserName: row.service_user_name, requireTransactionId: row.require_transaction_id };
}
