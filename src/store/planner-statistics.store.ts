import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.js';

/**
 * The tables whose planner statistics are missing or stale by PostgreSQL's own autovacuum rule
 * (docs/decisions.md, "Planner statistics on the embedded database"): never analyzed, or changed
 * since the last ANALYZE by more than `threshold` rows plus `scaleFactor` of the rows it counted
 * then (autovacuum_analyze_threshold 50 and autovacuum_analyze_scale_factor 0.1 by default). The
 * schema's own tables only, by name.
 */
export async function staleTables(
  db: Kysely<DB>,
  rule: { threshold: number; scaleFactor: number } = { threshold: 50, scaleFactor: 0.1 },
): Promise<string[]> {
  const { rows } = await sql<{ relname: string }>`
    SELECT c.relname
      FROM pg_class c
      JOIN pg_namespace n ON n.oid = c.relnamespace
      LEFT JOIN pg_stat_user_tables s ON s.relid = c.oid
     WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
       AND (c.reltuples < 0
            OR coalesce(s.n_mod_since_analyze, 0) > ${rule.threshold} + ${rule.scaleFactor} * c.reltuples)
     ORDER BY c.relname`.execute(db);
  return rows.map((r) => r.relname);
}

/** ANALYZE of one table of the schema: its row count and its columns' statistics brought up to date. */
export async function analyzeTable(db: Kysely<DB>, table: string): Promise<void> {
  await sql`ANALYZE ${sql.table(table)}`.execute(db);
}
