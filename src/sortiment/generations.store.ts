import { randomUUID } from 'node:crypto';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { type Kysely, type RawBuilder, type Transaction, sql } from 'kysely';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';

/**
 * Generations of a sortiment's articles and the writer's turn (migration 0008; docs/decisions.md,
 * "Sortiment", the entry on the bulk upload in generations).
 *
 * Readers see the rows live in the sortiment's `current_gen`. A writer first takes the
 * sortiment's turn (`pending_owner`, with a lease in `pending_until`); a bulk upload then writes
 * the next generation in many short transactions, each of which renews the lease and proves the
 * turn is still its own, and switches to it in one last short transaction. A turn whose lease ran
 * out belonged to a writer that died: the next writer takes it over and first removes what that
 * writer left of its unfinished generation.
 */

/** How long a turn lasts without renewal. Every transaction of the holder renews it. */
export const TURN_LEASE_MS = 10_000;
/** Rows per clean-up statement. */
const CLEANUP_ROWS = 5_000;

export interface Turn {
  readonly sortimentId: number;
  readonly token: string;
  /** The generation readers see while the turn is held. */
  readonly currentGen: number;
  /** The generation a bulk upload writes. */
  readonly nextGen: number;
  /** True once rows of `nextGen` (or closings at it) may exist. */
  dirty: boolean;
}

/**
 * The condition "row `a` of sortiment_articles is live in generation `gen`", what every reader
 * applies. `gen` is the sortiment's `current_gen`, read in the same snapshot: as a column of the
 * joined sortiment row, or as a number read earlier in the same repeatable-read transaction (a
 * number lets the planner use its statistics: deep menu pages keep walking the primary key).
 */
export function liveAt(a: string, gen: RawBuilder<number> | number): RawBuilder<boolean> {
  const to = sql.ref(`${a}.to_gen`);
  const g = typeof gen === 'number' ? sql`${gen}::bigint` : gen;
  return sql<boolean>`(${sql.ref(`${a}.from_gen`)} <= ${g} AND (${to} IS NULL OR ${to} > ${g}))`;
}

const leaseEnd = sql`now() + ${TURN_LEASE_MS}::integer * interval '1 millisecond'`;

/**
 * Takes the sortiment's turn, waiting while another writer holds it with a live lease (writers of
 * one sortiment take turns). When the previous holder's lease ran out, its leftovers are removed.
 */
export async function takeTurn(db: Kysely<DB>, merchantId: number, sortimentId: number): Promise<Turn> {
  const token = randomUUID();
  for (let waitMs = 20; ; waitMs = Math.min(waitMs * 2, 250)) {
    const taken = await db.transaction().execute(async (trx) => {
      const locked = await sql<{ current_gen: number; held: boolean; expired: boolean }>`
        SELECT current_gen, pending_owner IS NOT NULL AS held,
          COALESCE(pending_until < now(), true) AS expired
        FROM sortiments WHERE id = ${sortimentId} AND merchant_id = ${merchantId}
        FOR NO KEY UPDATE`.execute(trx);
      const row = locked.rows[0];
      if (!row) throw new AppError('sortimentUnknown');
      if (row.held && !row.expired) return null;
      await sql`
        UPDATE sortiments SET pending_owner = ${token}, pending_until = ${leaseEnd}
        WHERE id = ${sortimentId}`.execute(trx);
      return { currentGen: row.current_gen, abandoned: row.held };
    });
    if (taken) {
      const turn: Turn = {
        sortimentId,
        token,
        currentGen: taken.currentGen,
        nextGen: taken.currentGen + 1,
        dirty: taken.abandoned,
      };
      if (turn.dirty) await removeUnfinished(db, turn);
      return turn;
    }
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
}

/**
 * Runs `work` in one short transaction of the turn, after a turn of the event loop. It renews the
 * lease and fails when the turn is no longer this writer's (its lease ran out and another writer
 * took over), so a writer that stalled can never write into another writer's generation.
 */
export async function inTurn<T>(
  db: Kysely<DB>,
  turn: Turn,
  work: (trx: Transaction<DB>) => Promise<T>,
): Promise<T> {
  // A turn of the event loop, so that other requests' queries run between two transactions.
  await nextTurn();
  return db.transaction().execute(async (trx) => {
    const renewed = await sql`
      UPDATE sortiments SET pending_until = ${leaseEnd}
      WHERE id = ${turn.sortimentId} AND pending_owner = ${turn.token}`.execute(trx);
    if (renewed.numAffectedRows !== 1n) {
      throw new Error(
        `sortiment ${turn.sortimentId}: the writer's turn was taken over after its lease ran out`,
      );
    }
    return work(trx);
  });
}

/**
 * The last transaction of a bulk upload: `work` (which answers whether anything changed), then
 * the sortiment switches to the turn's generation, raises its version when something changed,
 * and the turn ends. O(1) in the number of articles.
 */
export async function switchGeneration(
  db: Kysely<DB>,
  turn: Turn,
  work: (trx: Transaction<DB>) => Promise<boolean>,
): Promise<void> {
  await inTurn(db, turn, async (trx) => {
    const changed = await work(trx);
    await sql`
      UPDATE sortiments SET current_gen = ${turn.nextGen}, version = version + ${changed ? 1 : 0}::integer,
        pending_owner = NULL, pending_until = NULL
      WHERE id = ${turn.sortimentId}`.execute(trx);
  });
  turn.dirty = false;
}

/** Gives the turn back, after removing what the holder wrote of its generation. */
export async function releaseTurn(db: Kysely<DB>, turn: Turn): Promise<void> {
  if (turn.dirty) await removeUnfinished(db, turn);
  await db
    .updateTable('sortiments')
    .set({ pending_owner: null, pending_until: null })
    .where('id', '=', turn.sortimentId)
    .where('pending_owner', '=', turn.token)
    .execute();
}

/**
 * Removes the rows of an unfinished generation (from_gen > current) and reopens the rows it had
 * closed (to_gen > current), in short transactions of the turn. The unfinished rows are found by
 * walking the sortiment in primary-key order: this runs only after a failed or abandoned upload.
 * Removal comes first: a PLU has at most one open row.
 */
async function removeUnfinished(db: Kysely<DB>, turn: Turn): Promise<void> {
  const s = turn.sortimentId;
  let last: { plu: string; from_gen: number } | undefined = { plu: '', from_gen: -1 };
  while (last) {
    const after: { plu: string; from_gen: number } = last;
    const span = await inTurn(db, turn, (trx) =>
      sql<{ plu: string; from_gen: number }>`
        WITH span AS (
          SELECT plu, from_gen FROM sortiment_articles
          WHERE sortiment_id = ${s} AND (plu, from_gen) > (${after.plu}, ${after.from_gen}::bigint)
          ORDER BY plu, from_gen LIMIT ${CLEANUP_ROWS}),
        gone AS (
          DELETE FROM sortiment_articles a USING span
          WHERE a.sortiment_id = ${s} AND a.plu = span.plu AND a.from_gen = span.from_gen
            AND span.from_gen > ${turn.currentGen}::bigint)
        SELECT plu, from_gen FROM span ORDER BY plu DESC, from_gen DESC LIMIT 1`.execute(trx),
    );
    last = span.rows[0];
  }
  for (;;) {
    const reopened = await inTurn(db, turn, (trx) =>
      sql`
        UPDATE sortiment_articles SET to_gen = NULL
        WHERE sortiment_id = ${s} AND (plu, from_gen) IN (
          SELECT plu, from_gen FROM sortiment_articles
          WHERE sortiment_id = ${s} AND to_gen > ${turn.currentGen}::bigint LIMIT ${CLEANUP_ROWS})`.execute(
        trx,
      ),
    );
    if ((reopened.numAffectedRows ?? 0n) === 0n) break;
  }
  turn.dirty = false;
}

/**
 * Deletes the rows no generation from `gen` on can see (closed at or before it), in short
 * statements. Such rows are never read again, so this needs no turn.
 */
export async function removeClosedRows(db: Kysely<DB>, sortimentId: number, gen: number): Promise<void> {
  for (;;) {
    await nextTurn();
    const removed = await sql`
      DELETE FROM sortiment_articles
      WHERE sortiment_id = ${sortimentId} AND (plu, from_gen) IN (
        SELECT plu, from_gen FROM sortiment_articles
        WHERE sortiment_id = ${sortimentId} AND to_gen <= ${gen}::bigint LIMIT ${CLEANUP_ROWS})`.execute(db);
    if ((removed.numAffectedRows ?? 0n) === 0n) return;
  }
}
