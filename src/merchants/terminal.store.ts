import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import type { PageRequest } from '../shared/paging.js';

/**
 * The terminal module's queries: developer keys, the credentials of terminals (tracking units)
 * and the signatures SecurityToken-V2 has accepted. Lookups answer null or undefined when nothing
 * matches; the use cases (terminal.ts, terminal.service.ts) turn that into errors.
 */

export async function findDevKey(
  db: Kysely<DB>,
  keySha256: string,
): Promise<{ id: number; revokedAt: Date | null } | undefined> {
  const row = await db
    .selectFrom('dev_keys')
    .select(['id', 'revoked_at'])
    .where('key_sha256', '=', keySha256)
    .executeTakeFirst();
  return row ? { id: row.id, revokedAt: row.revoked_at } : undefined;
}

/** Why a terminal may not act (`terminal_refusal`, src/merchants/sql/terminal_refusal.sql). */
export type TerminalRefusal =
  'devKeyRevoked' | 'trackingUnitInvalid' | 'trackingUnitDeactivated' | 'trackingUnitInactive';

/**
 * The DevKey and, when it registered that terminal, the terminal and its merchant, in one query;
 * the terminal's columns are null when the key did not register it. `refusal` is the one rule of
 * whether the terminal may act, as the writes that re-check a remembered terminal apply it.
 */
export async function findTerminalCredentials(
  db: Kysely<DB>,
  keySha256: string,
  unitId: string,
  requireActive: boolean,
) {
  return db
    .selectFrom('dev_keys as dk')
    .leftJoin('tracking_units as tu', (join) =>
      join.on('tu.id', '=', unitId).on(sql<boolean>`tu.dev_key_id = dk.id`),
    )
    .leftJoin('merchants as m', 'm.id', 'tu.merchant_id')
    .select([
      'dk.id as devKeyId',
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
      sql<TerminalRefusal | null>`terminal_refusal(dk.revoked_at, tu.id, tu.activated, tu.deactivated_at,
        ${requireActive})`.as('refusal'),
    ])
    .where('dk.key_sha256', '=', keySha256)
    .executeTakeFirst();
}

/**
 * Keeps a SecurityToken-V2 signature until `expiresAt`; false when the terminal's signature was
 * seen before. One statement: the terminal's expired signatures go, and this one is kept unless
 * seen, so no instance of the service accepts one twice.
 */
export async function keepSignature(
  db: Kysely<DB>,
  unitId: string,
  signature: string,
  expiresAt: Date,
  now: Date,
): Promise<boolean> {
  const kept = await sql<{ signature: string }>`
    WITH purged AS (
      DELETE FROM security_token_signatures
       WHERE tracking_unit_id = ${unitId} AND expires_at < ${now})
    INSERT INTO security_token_signatures (tracking_unit_id, signature, expires_at)
    VALUES (${unitId}, ${signature}, ${expiresAt})
    ON CONFLICT (tracking_unit_id, signature) DO NOTHING
    RETURNING signature`.execute(db);
  return kept.rows.length > 0;
}

export async function insertDevKey(
  db: Kysely<DB>,
  keySha256: string,
  name: string,
  nowMs: number,
): Promise<number> {
  const row = await db
    .insertInto('dev_keys')
    .values({ key_sha256: keySha256, name, created_at: new Date(nowMs) })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

export interface DevKeyRow {
  readonly id: number;
  readonly name: string;
  readonly created_at: Date;
  readonly revoked_at: Date | null;
}

export async function listDevKeyRows(db: Kysely<DB>, page?: PageRequest): Promise<DevKeyRow[]> {
  let q = db.selectFrom('dev_keys').select(['id', 'name', 'created_at', 'revoked_at']).orderBy('id');
  // Paged by id, which only grows (docs/decisions.md, "Paging").
  if (page?.after) q = q.where('id', '>', Number(page.after[0]));
  if (page) q = q.limit(page.limit + 1);
  return q.execute();
}

/** Revokes the key unless revoked before (its first revocation time stays); its row after that. */
export async function revokeDevKeyRow(db: Kysely<DB>, id: number, now: Date): Promise<DevKeyRow | undefined> {
  await db
    .updateTable('dev_keys')
    .set({ revoked_at: now })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
  return db
    .selectFrom('dev_keys')
    .select(['id', 'name', 'created_at', 'revoked_at'])
    .where('id', '=', id)
    .executeTakeFirst();
}

export async function terminalStateRow(db: Kysely<DB>, unitId: string) {
  return db
    .selectFrom('tracking_units')
    .select(['id', 'activated', 'deactivated_at', 'require_security_token_v2'])
    .where('id', '=', unitId)
    .executeTakeFirst();
}

/** False when there is no such terminal. */
export async function updateTerminalActive(
  db: Kysely<DB>,
  unitId: string,
  active: boolean,
  now: Date,
): Promise<boolean> {
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
  return updated !== undefined;
}

/** False when there is no such terminal. */
export async function updateTerminalSecurity(
  db: Kysely<DB>,
  unitId: string,
  requireSecurityTokenV2: boolean,
  now: Date,
): Promise<boolean> {
  const updated = await db
    .updateTable('tracking_units')
    .set({ require_security_token_v2: requireSecurityTokenV2, updated_at: now })
    .where('id', '=', unitId)
    .returning('id')
    .executeTakeFirst();
  return updated !== undefined;
}

/** False when there is no such terminal. */
export async function updateChecksumSecret(
  db: Kysely<DB>,
  unitId: string,
  checksumSecret: string,
  now: Date,
): Promise<boolean> {
  const updated = await db
    .updateTable('tracking_units')
    .set({ checksum_secret: checksumSecret, checksum_secret_rotated_at: now, updated_at: now })
    .where('id', '=', unitId)
    .returning('id')
    .executeTakeFirst();
  return updated !== undefined;
}

/** The merchant's security settings, after changing those given; undefined for no such merchant. */
export async function merchantSecurityRow(
  db: Kysely<DB>,
  serviceUserName: string,
  changes: { requireTransactionId?: boolean },
): Promise<{ service_user_name: string; require_transaction_id: boolean } | undefined> {
  if (changes.requireTransactionId !== undefined) {
    await db
      .updateTable('merchants')
      .set({ require_transaction_id: changes.requireTransactionId })
      .where('service_user_name', '=', serviceUserName)
      .execute();
  }
  return db
    .selectFrom('merchants')
    .select(['service_user_name', 'require_transaction_id'])
    .where('service_user_name', '=', serviceUserName)
    .executeTakeFirst();
}

export interface TerminalPlacement {
  merchantId: number;
  outletId: number;
  sortimentId: number | null;
  instanceName: string;
}

export async function registerTerminal(
  db: Kysely<DB>,
  terminal: TerminalPlacement & { id: string; devKeyId: number; checksumSecret: string; activated: boolean },
  nowMs: number,
): Promise<void> {
  const now = new Date(nowMs);
  await db
    .insertInto('tracking_units')
    .values({
      id: terminal.id,
      merchant_id: terminal.merchantId,
      dev_key_id: terminal.devKeyId,
      outlet_id: terminal.outletId,
      sortiment_id: terminal.sortimentId,
      instance_name: terminal.instanceName,
      checksum_secret: terminal.checksumSecret,
      activated: terminal.activated,
      activated_at: terminal.activated ? now : null,
      updated_at: now,
    })
    .execute();
}

export async function reassignTerminal(
  db: Kysely<DB>,
  unitId: string,
  placement: TerminalPlacement,
  nowMs: number,
): Promise<void> {
  await db
    .updateTable('tracking_units')
    .set({
      outlet_id: placement.outletId,
      sortiment_id: placement.sortimentId,
      instance_name: placement.instanceName,
      updated_at: new Date(nowMs),
    })
    .where('id', '=', unitId)
    .where('merchant_id', '=', placement.merchantId)
    .execute();
}

export interface TerminalListing {
  trackingUnitId: string;
  instanceName: string;
  outletId: number;
  sortimentId: number | null;
  activated: boolean;
  deactivated: boolean;
  requireSecurityTokenV2: boolean;
  devKeyId: number;
  devKeyName: string;
  devKeyRevoked: boolean;
  createdAt: string;
}

/**
 * The merchant's terminals, oldest first. Paged by (creation time to the millisecond, id)
 * (docs/decisions.md, "Paging"): the creation time is truncated in the order and in the cursor alike
 * (the cursor takes it from `createdAt`), with the DevKey (vendor) that registered each.
 */
export async function listTerminals(
  db: Kysely<DB>,
  merchantId: number,
  page?: PageRequest,
): Promise<TerminalListing[]> {
  const createdMs = sql<string>`floor(extract(epoch from tu.created_at) * 1000)::bigint`;
  let q = db
    .selectFrom('tracking_units as tu')
    .innerJoin('dev_keys as dk', 'dk.id', 'tu.dev_key_id')
    .select([
      'tu.id',
      'tu.instance_name',
      'tu.outlet_id',
      'tu.sortiment_id',
      'tu.activated',
      'tu.deactivated_at',
      'tu.require_security_token_v2',
      'tu.created_at',
      'dk.id as dev_key_id',
      'dk.name as dev_key_name',
      'dk.revoked_at as dev_key_revoked_at',
    ])
    .where('tu.merchant_id', '=', merchantId)
    .orderBy(createdMs)
    .orderBy('tu.id');
  const after = page?.after;
  if (after) {
    const at = Number(after[0]);
    const id = String(after[1]);
    q = q.where((eb) =>
      eb.or([eb(createdMs, '>', String(at)), eb.and([eb(createdMs, '=', String(at)), eb('tu.id', '>', id)])]),
    );
  }
  if (page) q = q.limit(page.limit + 1);
  const rows = await q.execute();
  return rows.map((r) => ({
    trackingUnitId: r.id,
    instanceName: r.instance_name,
    outletId: r.outlet_id,
    sortimentId: r.sortiment_id,
    activated: r.activated,
    deactivated: r.deactivated_at !== null,
    requireSecurityTokenV2: r.require_security_token_v2,
    devKeyId: r.dev_key_id,
    devKeyName: r.dev_key_name,
    devKeyRevoked: r.dev_key_revoked_at !== null,
    createdAt: r.created_at.toISOString(),
  }));
}
