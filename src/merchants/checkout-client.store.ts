import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';
import type { PageRequest } from '../shared/paging.js';

/**
 * Checkout clients of a merchant (docs/decisions.md, "Checkout v1: clients"). The access token is
 * kept only as its SHA-256, as DevKeys are; the security secret is kept as it is, since the
 * Security-Token is an HMAC keyed with it (as a terminal's checksumSecret).
 */

export interface CheckoutClient {
  readonly id: number;
  readonly merchantId: number;
  readonly merchantCurrency: string;
  readonly merchantTimeZone: string;
  readonly securitySecret: string;
}

export interface CheckoutClientListing {
  id: number;
  name: string;
  createdAt: string;
  revokedAt: string | null;
}

function listing(r: {
  id: number;
  name: string;
  created_at: Date;
  revoked_at: Date | null;
}): CheckoutClientListing {
  return {
    id: r.id,
    name: r.name,
    createdAt: r.created_at.toISOString(),
    revokedAt: r.revoked_at === null ? null : r.revoked_at.toISOString(),
  };
}

export function accessTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

export async function createCheckoutClientRow(
  db: Kysely<DB>,
  merchantId: number,
  name: string,
  nowMs: number,
): Promise<{ id: number; accessToken: string; securitySecret: string }> {
  const accessToken = `ck_${randomBytes(24).toString('base64url')}`;
  const securitySecret = randomBytes(32).toString('base64url');
  const row = await db
    .insertInto('checkout_clients')
    .values({
      merchant_id: merchantId,
      name,
      access_token_sha256: accessTokenHash(accessToken),
      security_secret: securitySecret,
      created_at: new Date(nowMs),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: row.id, accessToken, securitySecret };
}

export async function listCheckoutClients(
  db: Kysely<DB>,
  merchantId: number,
  page?: PageRequest,
): Promise<CheckoutClientListing[]> {
  let q = db
    .selectFrom('checkout_clients')
    .select(['id', 'name', 'created_at', 'revoked_at'])
    .where('merchant_id', '=', merchantId)
    .orderBy('id');
  // Paged by id, which only grows (docs/decisions.md, "Paging").
  if (page?.after) q = q.where('id', '>', Number(page.after[0]));
  if (page) q = q.limit(page.limit + 1);
  const rows = await q.execute();
  return rows.map(listing);
}

/**
 * Revokes a client of the merchant (revoking a revoked one keeps its first time) and answers it;
 * null when the merchant has no client under this id.
 */
export async function revokeCheckoutClientRow(
  db: Kysely<DB>,
  merchantId: number,
  id: number,
  nowMs: number,
): Promise<CheckoutClientListing | null> {
  const row = await db
    .updateTable('checkout_clients')
    .set((eb) => ({ revoked_at: eb.fn.coalesce('revoked_at', eb.val(new Date(nowMs))) }))
    .where('merchant_id', '=', merchantId)
    .where('id', '=', id)
    .returning(['id', 'name', 'created_at', 'revoked_at'])
    .executeTakeFirst();
  return row === undefined ? null : listing(row);
}

/** The live client holding this access token, or null. */
export async function findCheckoutClient(
  db: Kysely<DB>,
  accessToken: string,
): Promise<CheckoutClient | null> {
  const row = await db
    .selectFrom('checkout_clients as c')
    .innerJoin('merchants as m', 'm.id', 'c.merchant_id')
    .select(['c.id', 'c.merchant_id', 'c.security_secret', 'm.currency', 'm.time_zone'])
    .where('c.access_token_sha256', '=', accessTokenHash(accessToken))
    .where('c.revoked_at', 'is', null)
    .executeTakeFirst();
  if (!row) return null;
  return {
    id: row.id,
    merchantId: row.merchant_id,
    merchantCurrency: row.currency.trim(),
    merchantTimeZone: row.time_zone,
    securitySecret: row.security_secret,
  };
}
