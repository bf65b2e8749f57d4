import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.js';

/** Readiness: whether the database answers a trivial query. */
export async function databaseAnswers(db: Kysely<DB>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}
