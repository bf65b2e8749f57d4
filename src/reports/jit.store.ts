import { type Kysely, sql } from 'kysely';
import type { DB } from '../store/schema.js';

/**
 * A statement run in a transaction of its own with PostgreSQL's JIT compilation off: for statements
 * whose cost the planner overestimates, where compiling takes longer than the work.
 */
export async function withoutJit<T>(db: Kysely<DB>, run: (trx: Kysely<DB>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`SET LOCAL jit = off`.execute(trx);
    return run(trx);
  });
}
