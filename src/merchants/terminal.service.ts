import type { PageRequest } from '../shared/paging.js';
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { Deps } from '../store/deps.js';
import type { DB } from '../store/schema.js';
import { findMerchantByName, isOutletOf, isSortimentOf } from './merchant.store.js';
import { devKeyHash, newChecksumSecret } from './terminal.js';
import {
  type DevKeyRow,
  insertDevKey,
  listDevKeyRows,
  merchantSecurityRow,
  reassignTerminal,
  registerTerminal,
  revokeDevKeyRow,
  type TerminalPlacement,
  terminalStateRow,
  updateChecksumSecret,
  updateTerminalActive,
  updateTerminalSecurity,
} from './terminal.store.js';

/**
 * What the operator (and the merchant portal) can do to the credentials of the tills: issue and
 * revoke DevKeys, deactivate and activate terminals, rotate a terminal's checksumSecret, switch a
 * terminal to SecurityToken-V2, and require transactionIds for a merchant. Every change takes
 * effect on the next request on every instance: nothing of it is trusted from a cache
 * (terminal.ts).
 */

export interface IssuedDevKey {
  readonly id: number;
  readonly devKey: string;
  readonly name: string;
}

/**
 * A new DevKey: 32 random bytes, shown once; only its SHA-256 is stored. Made on the service's
 * clock, as its revocation is.
 */
export async function issueDevKey({ db, clock }: Deps, name: string): Promise<IssuedDevKey> {
  const devKey = randomBytes(32).toString('base64url');
  const id = await insertDevKey(db, devKeyHash(devKey), name, clock.nowMs());
  return { id, devKey, name };
}

export interface DevKeyView {
  readonly id: number;
  readonly name: string;
  readonly createdAt: string;
  readonly revokedAt: string | null;
}

function devKeyView(r: DevKeyRow): DevKeyView {
  return {
    id: r.id,
    name: r.name,
    createdAt: r.created_at.toISOString(),
    revokedAt: r.revoked_at === null ? null : r.revoked_at.toISOString(),
  };
}

export async function listDevKeys({ db }: Deps, page?: PageRequest): Promise<DevKeyView[]> {
  return (await listDevKeyRows(db, page)).map(devKeyView);
}

/** Revocation is final; revoking a revoked key answers it again (its first revocation time). */
export async function revokeDevKey({ db, clock }: Deps, id: number): Promise<DevKeyView> {
  const r = await revokeDevKeyRow(db, id, new Date(clock.nowMs()));
  if (!r) throw new AppError('notFound', 'No DevKey under this id.');
  return devKeyView(r);
}

export interface TerminalState {
  readonly trackingUnitId: string;
  readonly activated: boolean;
  readonly deactivated: boolean;
  readonly requireSecurityTokenV2: boolean;
}

const NO_TERMINAL = 'No terminal under this id.';

async function terminalState(db: Kysely<DB>, unitId: string): Promise<TerminalState> {
  const row = await terminalStateRow(db, unitId);
  if (!row) throw new AppError('notFound', NO_TERMINAL);
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
  { db, clock }: Deps,
  unitId: string,
  active: boolean,
): Promise<TerminalState> {
  if (!(await updateTerminalActive(db, unitId, active, new Date(clock.nowMs())))) {
    throw new AppError('notFound', NO_TERMINAL);
  }
  return terminalState(db, unitId);
}

/** Requires SecurityToken-V2 of a terminal (the MD5 token is then refused), or allows MD5 again. */
export async function setTerminalSecurity(
  { db, clock }: Deps,
  unitId: string,
  settings: { requireSecurityTokenV2: boolean },
): Promise<TerminalState> {
  const nowMs = clock.nowMs();
  if (!(await updateTerminalSecurity(db, unitId, settings.requireSecurityTokenV2, new Date(nowMs)))) {
    throw new AppError('notFound', NO_TERMINAL);
  }
  return terminalState(db, unitId);
}

/**
 * A new checksumSecret for a terminal, answered once: tokens made with the old one are refused
 * from the next request on, on every instance.
 */
export async function rotateChecksumSecret(
  { db, clock }: Deps,
  unitId: string,
): Promise<{ trackingUnitId: string; checksumSecret: string }> {
  const checksumSecret = newChecksumSecret();
  if (!(await updateChecksumSecret(db, unitId, checksumSecret, new Date(clock.nowMs())))) {
    throw new AppError('notFound', NO_TERMINAL);
  }
  return { trackingUnitId: unitId, checksumSecret };
}

export interface MerchantSecurity {
  readonly serviceUserName: string;
  readonly requireTransactionId: boolean;
}

/** The merchant's security settings; `changes` omitted reads them. */
export async function merchantSecurity(
  { db }: Deps,
  serviceUserName: string,
  changes: { requireTransactionId?: boolean } = {},
): Promise<MerchantSecurity> {
  const row = await merchantSecurityRow(db, serviceUserName, changes);
  if (!row) throw new AppError('notFound', `No merchant "${serviceUserName}".`);
  return { serviceUserName: row.service_user_name, requireTransactionId: row.require_transaction_id };
}

/** The checks shared by registration and re-assign, in the order of the error table. */
export async function resolvePlacement(
  { db }: Deps,
  query: { serviceUserName?: string; outletId: number; sortimentId?: number; instanceName?: string },
  ownMerchantId: number | null,
): Promise<TerminalPlacement> {
  const instanceName = query.instanceName?.trim();
  if (!instanceName) throw new AppError('instanceNameMissing');
  if (!query.serviceUserName) throw new AppError('userNameUnknown');
  const merchant = await findMerchantByName(db, query.serviceUserName);
  // A unit stays with its merchant: another merchant's user name answers like an unknown one.
  if (!merchant || (ownMerchantId !== null && merchant.id !== ownMerchantId)) {
    throw new AppError('userNameUnknown');
  }
  if (!(await isOutletOf(db, merchant.id, query.outletId))) throw new AppError('outletNotOfMerchant');
  let sortimentId: number | null = null;
  if (query.sortimentId !== undefined) {
    if (!(await isSortimentOf(db, merchant.id, query.sortimentId))) throw new AppError('sortimentUnknown');
    sortimentId = query.sortimentId;
  }
  return { merchantId: merchant.id, outletId: query.outletId, sortimentId, instanceName };
}

/**
 * A new terminal of the placement, registered with the caller's DevKey under a new identifier and
 * checksumSecret; inactive until the merchant activates it unless `activated`.
 */
export async function registerNewTerminal(
  { db, clock }: Deps,
  devKeyId: number,
  placement: TerminalPlacement,
  activated: boolean,
): Promise<{ trackingUnitId: string; checksumSecret: string }> {
  const id = randomUUID();
  const checksumSecret = newChecksumSecret();
  await registerTerminal(db, { ...placement, id, devKeyId, checksumSecret, activated }, clock.nowMs());
  return { trackingUnitId: id, checksumSecret };
}

/** A terminal moved to another placement of its merchant (resolvePlacement keeps it with its merchant). */
export async function reassignTerminalPlacement(
  { db, clock }: Deps,
  unitId: string,
  placement: TerminalPlacement,
): Promise<void> {
  await reassignTerminal(db, unitId, placement, clock.nowMs());
}
