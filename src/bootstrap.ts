import { randomBytes } from 'node:crypto';
import { hashToken } from './admin/auth.js';
import type { Config } from './config.js';
import type { Database } from './store/db.js';

/**
 * Where the operator token of this start came from: ADMIN_TOKEN (`environment`), ADMIN_TOKEN while
 * a token made on an earlier first start is stored (`environment-replacing-stored`: the stored one
 * does not work while ADMIN_TOKEN is set), made by this start (`created`), or made on an earlier
 * first start (`stored`).
 */
export type AdminTokenSource = 'environment' | 'environment-replacing-stored' | 'created' | 'stored';

/**
 * The operator token: ADMIN_TOKEN when set; otherwise one made on first start, stored only as
 * its hash, and returned once so that the server prints it.
 */
export async function ensureAdminToken(
  config: Config,
  database: Database,
): Promise<{ hash: string; created: string | null; source: AdminTokenSource }> {
  const existing = await database.db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', 'admin_token_sha256')
    .executeTakeFirst();
  if (config.adminToken) {
    const hash = hashToken(config.adminToken);
    const replacing = existing !== undefined && existing.value !== hash;
    return { hash, created: null, source: replacing ? 'environment-replacing-stored' : 'environment' };
  }
  if (existing) return { hash: existing.value, created: null, source: 'stored' };
  const token = randomBytes(24).toString('base64url');
  const hash = hashToken(token);
  const inserted = await database.db
    .insertInto('settings')
    .values({ key: 'admin_token_sha256', value: hash })
    .onConflict((oc) => oc.column('key').doNothing())
    .returning('value')
    .executeTakeFirst();
  if (inserted) return { hash, created: token, source: 'created' };
  // Another instance made it first.
  const winner = await database.db
    .selectFrom('settings')
    .select('value')
    .where('key', '=', 'admin_token_sha256')
    .executeTakeFirstOrThrow();
  return { hash: winner.value, created: null, source: 'stored' };
}
