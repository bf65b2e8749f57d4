import { CompiledQuery, type Kysely, sql } from 'kysely';
import type { WriteWay } from '../shared/group-commit.js';
import type { PipelinedConnection } from './pipelined-connection.js';
import type { DB } from './schema.js';

/** A batch's wait for a row lock on a writer's pipelined connection, and an item's written alone. */
export const BATCH_LOCK_WAIT_MS = 200;

/** The wait of an item written the `waiting` way (one per writer at a time) for a row lock. */
export const WAITING_LOCK_WAIT_MS = 5_000;

/** How long a statement written the given way waits for a row another session holds locked. */
function lockWaitMs(way: WriteWay): number {
  return way === 'waiting' ? WAITING_LOCK_WAIT_MS : BATCH_LOCK_WAIT_MS;
}

/**
 * Runs one of a writer's statements (docs/decisions.md, "A row locked for long"). `batch`: on the
 * writer's pipelined connection, which waits at most BATCH_LOCK_WAIT_MS for a row another session
 * holds, so that one locked balance cannot hold every batch behind it. `alone` and `waiting`: an
 * item whose batch gave up so, written through the pool in a transaction of its own that waits as
 * briefly (`alone`) or up to WAITING_LOCK_WAIT_MS (`waiting`); past it the statement fails with
 * lock_not_available (55P03). Without a pipelined connection (the embedded database, a pooler
 * without a way past it) every way goes through the pool as it always did: nothing else waits on
 * them there.
 */
export async function writerQuery<R>(
  db: Kysely<DB>,
  pipeline: PipelinedConnection | null,
  way: WriteWay,
  statement: { readonly name: string; readonly text: string },
  params: readonly unknown[],
): Promise<R[]> {
  if (pipeline === null)
    return (await db.executeQuery<R>(CompiledQuery.raw(statement.text, [...params]))).rows;
  if (way === 'batch') return pipeline.query<R>(statement.name, statement.text, params);
  return db.transaction().execute(async (trx) => {
    await sql.raw(`SET LOCAL lock_timeout = ${lockWaitMs(way)}`).execute(trx);
    return (await trx.executeQuery<R>(CompiledQuery.raw(statement.text, [...params]))).rows;
  });
}
