import type { Kysely } from 'kysely';
import type { DB } from '../store/schema.js';

/** Settings the service keeps in the database (the generated VAPID keys). */
export async function readSettings(
  db: Kysely<DB>,
  keys: readonly string[],
): Promise<{ key: string; value: string }[]> {
  return db.selectFrom('settings').select(['key', 'value']).where('key', 'in', keys).execute();
}

/** Writes the settings that are not set yet, in one transaction; a value already set wins. */
export async function addSettings(
  db: Kysely<DB>,
  rows: readonly { key: string; value: string }[],
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('settings')
      .values([...rows])
      .onConflict((oc) => oc.column('key').doNothing())
      .execute();
  });
}
