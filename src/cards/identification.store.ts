import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';

/**
 * The counters of failed identifications (identification-throttle.ts) and the coupon codes they
 * spare. Takes `count` from the subject's budget of the window, in one statement that also drops the
 * subject's older windows; false (nothing taken) when the budget would be exceeded.
 */
export async function takeIdentificationBudget(
  db: Kysely<DB>,
  merchantId: number,
  subject: string,
  windowStart: Date,
  count: number,
  limit: number,
): Promise<boolean> {
  if (count > limit) return false;
  const r = await sql<{ failures: number }>`
    WITH purged AS (
      DELETE FROM identification_failures
       WHERE merchant_id = ${merchantId} AND subject = ${subject} AND window_start < ${windowStart})
    INSERT INTO identification_failures AS f (merchant_id, subject, window_start, failures)
    VALUES (${merchantId}, ${subject}, ${windowStart}, ${count})
    ON CONFLICT (merchant_id, subject, window_start)
      DO UPDATE SET failures = f.failures + ${count} WHERE f.failures + ${count} <= ${limit}
    RETURNING failures`.execute(db);
  return r.rows.length > 0;
}

export async function giveBackIdentificationBudget(
  db: Kysely<DB>,
  merchantId: number,
  subject: string,
  windowStart: Date,
  count: number,
): Promise<void> {
  if (count <= 0) return;
  await db
    .updateTable('identification_failures')
    .set((eb) => ({ failures: eb('failures', '-', count) }))
    .where('merchant_id', '=', merchantId)
    .where('subject', '=', subject)
    .where('window_start', '=', windowStart)
    .execute();
}

/**
 * The candidates that are coupon codes of the merchant's campaigns, or unique codes of one
 * (docs/decisions.md, "Unique codes"; the candidates are digits, so their upper case is
 * themselves): no guess, no failure.
 */
export async function couponCodesAmong(
  db: Kysely<DB>,
  merchantId: number,
  candidates: readonly string[],
): Promise<Set<string>> {
  const rows = await sql<{ code: string }>`
    SELECT DISTINCT engine->>'couponCode' AS code FROM campaigns
     WHERE merchant_id = ${merchantId} AND engine->>'couponCode' IN (${sql.join(candidates)})
    UNION
    SELECT code FROM campaign_codes
     WHERE merchant_id = ${merchantId} AND code IN (${sql.join(candidates)})`.execute(db);
  return new Set(rows.rows.map((r) => r.code));
}
