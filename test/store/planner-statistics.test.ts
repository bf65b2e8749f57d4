import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, setupTerminal, startApp } from '../support/harness.js';
import { eventually } from '../notifications/support.js';
import { staleTables } from '../../src/store/planner-statistics.store.js';

/**
 * docs/decisions.md, "Planner statistics on the embedded database": PGlite runs no autovacuum, so
 * the server analyzes the tables that changed by more than a tenth since their last ANALYZE (or
 * were never analyzed), as autovacuum would on PostgreSQL, which keeps its own.
 */
describe('the embedded database keeps its planner statistics', () => {
  let t: TestApp;
  let merchantId = 0;

  beforeAll(async () => {
    t = await startApp('pglite', { embeddedAnalyzeEveryMs: 200 });
    const term = await setupTerminal(t);
    const m = await t.database.db
      .selectFrom('merchants')
      .select('id')
      .where('service_user_name', '=', term.serviceUserName)
      .executeTakeFirstOrThrow();
    merchantId = Number(m.id);
  }, 60_000);
  afterAll(async () => t?.close());

  const counted = async (table: string) => {
    const { rows } = await sql<{ reltuples: number; last_analyze: Date | null }>`
      SELECT c.reltuples::float8 AS reltuples, s.last_analyze
        FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = ${table}`.execute(
      t.database.db,
    );
    return rows[0];
  };

  it('a table grown by thousands of rows is analyzed within a pass: its row count and its columns known to the planner', async () => {
    await eventually(async () => expect(await staleTables(t.database.db)).toEqual([]), 20_000);
    const before = (await counted('outbox_messages'))?.reltuples ?? -1;
    await sql`INSERT INTO outbox_messages (merchant_id, topic, payload, status, next_attempt_at, delivered_at)
      SELECT ${merchantId}, 'purchase.notification',
             jsonb_build_object('receiptId', 'receipt-' || g, 'profileId', g, 'event', 'grant'),
             'delivered', now(), now()
        FROM generate_series(1, 3000) g`.execute(t.database.db);
    await eventually(async () => {
      const now = await counted('outbox_messages');
      expect(now?.reltuples).toBeGreaterThanOrEqual(before + 3000);
    }, 20_000);
    const { rows } = await sql<{ n: string }>`
      SELECT count(*) AS n FROM pg_stats WHERE tablename = 'outbox_messages' AND attname = 'topic'`.execute(
      t.database.db,
    );
    expect(Number(rows[0]?.n)).toBe(1);
    expect(await staleTables(t.database.db)).not.toContain('outbox_messages');
  }, 60_000);

  it('a change of less than a tenth of a table waits for more: PostgreSQL’s own rule', async () => {
    await eventually(async () => expect(await staleTables(t.database.db)).toEqual([]), 20_000);
    const analyzedAt = (await counted('outbox_messages'))?.last_analyze;
    await sql`UPDATE outbox_messages SET attempts = 1 WHERE id IN (
      SELECT id FROM outbox_messages WHERE topic = 'purchase.notification' ORDER BY id LIMIT 100)`.execute(
      t.database.db,
    );
    expect(await staleTables(t.database.db)).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await counted('outbox_messages'))?.last_analyze).toEqual(analyzedAt);
    await sql`UPDATE outbox_messages SET attempts = 2 WHERE topic = 'purchase.notification'`.execute(
      t.database.db,
    );
    await eventually(async () => {
      const at = (await counted('outbox_messages'))?.last_analyze;
      expect(at?.getTime()).toBeGreaterThan(analyzedAt?.getTime() ?? Infinity);
    }, 20_000);
  }, 60_000);
});
