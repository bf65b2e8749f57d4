import { randomBytes } from 'node:crypto';
import { hashToken } from './admin/auth.js';
import type { Config } from './config.js';
import type { Database } from './store/db.js';

/**
 * The operator token: ADMIN_TOKEN when set; otherwise one made on first start, stored only as
 * its hash, and returned once so that the server prints it.
 */
export async function ensureAdminToken(
  config: Config,
  database: Database,
): Promise<{ hash: string; created: string | null }> {
  if (config.adminToken) return { hash: hashToken(config.adminToken), created: null };
  const existing = await database.db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', 'admin_token_sha256')
    .executeTakeFirst();
  if (existing) return { hash: existing.value, created: null };
  const token = randomBytes(24).toString('base64url');
  const hash = hashToken(token);
  const inserted = await database.db
    .insertInto('settings')
    .values({ key: 'admin_token_sha256', value: hash })
    .onConflict((oc) => oc.column('key').doNothing())
    .returning('value')
    .executeTakeFirst();
  if (inserted) return { hash, created: token };
  // Another instance made it first.
  const winner = await database.db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', 'admin_token_sha256')
    .executeTakeFirstOrThrow();
  return { hash: winner.value, created: null };
}
