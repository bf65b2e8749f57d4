import { sql } from 'kysely';
import type { Database } from './db.js';

/**
 * How far the replica behind `Database.read` is behind the leader, in whole seconds: 0 when it has
 * replayed everything it received (an idle leader sends nothing to replay), null when reads are not
 * served by a replica. Pages that read the replica show it when it matters.
 */
export async function replicaLagSeconds(database: Database): Promise<number | null> {
  if (!database.readsReplica) return null;
  const { rows } = await sql<{ lag: number | string | null }>`
    SELECT CASE
             WHEN NOT pg_is_in_recovery() OR pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
             ELSE floor(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()))
           END AS lag`.execute(database.read);
  const lag = Number(rows[0]?.lag ?? 0);
  return Number.isFinite(lag) && lag > 0 ? lag : 0;
}
