import { type Kysely, sql } from 'kysely';
import type { DB } from './schema.js';

/** Readiness: whether the database answers a trivial query; `onFailure` hears why it does not. */
export async function databaseAnswers(
  db: Kysely<DB>,
  onFailure: (err: unknown) => void = () => undefined,
): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch (err) {
    onFailure(err);
    return false;
  }
}
