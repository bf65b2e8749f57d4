import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.js';

/** An address's failures in its current window, as the database holds them. */
export interface AddressWindow {
  readonly failures: number;
  readonly windowEndMs: number;
}

/** The address's live window of `scope` (one whose end is after `nowMs`), or null. */
export async function addressWindow(
  db: Kysely<DB>,
  scope: string,
  address: string,
  nowMs: number,
): Promise<AddressWindow | null> {
  const row = await db
    .selectFrom('address_failures')
    .select(['failures', 'window_end'])
    .where('scope', '=', scope)
    .where('address', '=', address)
    .where('window_end', '>', new Date(nowMs))
    .executeTakeFirst();
  return row ? { failures: row.failures, windowEndMs: new Date(row.window_end).getTime() } : null;
}

/**
 * Counts one failure of the address in one statement, whichever instance counts it: in its live
 * window, or in a new one of `windowMs` from `nowMs` when the last has ended (a window begins at
 * its first failure, as FailureThrottle's). A new window also deletes up to 100 ended rows of any
 * address, so the table holds about the addresses that failed within a window.
 */
export async function countAddressFailure(
  db: Kysely<DB>,
  scope: string,
  address: string,
  nowMs: number,
  windowMs: number,
): Promise<AddressWindow> {
  const now = new Date(nowMs);
  const end = new Date(nowMs + windowMs);
  const r = await sql<{ failures: number; window_end: Date | string; fresh: boolean }>`
    INSERT INTO address_failures AS f (scope, address, window_end, failures)
    VALUES (${scope}, ${address}, ${end}, 1)
    ON CONFLICT (scope, address) DO UPDATE
       SET failures = CASE WHEN f.window_end > ${now} THEN f.failures + 1 ELSE 1 END,
           window_end = CASE WHEN f.window_end > ${now} THEN f.window_end ELSE ${end} END
    RETURNING failures, window_end, failures = 1 AS fresh`.execute(db);
  const row = r.rows[0];
  if (!row) throw new Error('address_failures: the count wrote no row');
  if (row.fresh) {
    await sql`
      DELETE FROM address_failures
       WHERE ctid IN (SELECT ctid FROM address_failures WHERE window_end <= ${now} LIMIT 100)`.execute(db);
  }
  return { failures: row.failures, windowEndMs: new Date(row.window_end).getTime() };
}
