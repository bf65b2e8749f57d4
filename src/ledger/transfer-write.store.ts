import type { Kysely } from 'kysely';
import { GroupCommit, type GroupCommitOptions, type WriteWay } from '../shared/group-commit.js';
import type { Database } from '../store/db.js';
import type { PipelinedConnection } from '../store/pipelined-connection.js';
import type { DB } from '../store/schema.js';
import { writerQuery } from '../store/writer-query.js';
import type { PlannedTransfer } from './rules/posting-rules.js';
import {
  type CardFacts,
  type PostResult,
  POSTING_FIELDS,
  type TransferMeta,
  isUniqueViolation,
  postResultOf,
  postingArguments,
} from './ledger.store.js';

/** One request's planned posting, as `postTransfer` takes it. */
export interface TransferWrite {
  readonly plan: PlannedTransfer;
  readonly meta: TransferMeta;
  readonly card: CardFacts | null;
}

interface Row {
  row_no: number;
  transfer_id: number | string | null;
  balance_after_minor: number | string | null;
}

/** The statement, and its name as a prepared statement of the writer's pipelined connection. */
const POST_SINGLE_TRANSFERS = {
  name: 'post_single_transfers',
  text: 'SELECT row_no, transfer_id, balance_after_minor FROM post_single_transfers($1::json)',
};

function rowJson(rowNo: number, w: TransferWrite): string {
  const values = postingArguments(w.plan, w.meta, w.card);
  const row: Record<string, unknown> = { row_no: rowNo };
  POSTING_FIELDS.forEach((field, i) => {
    row[field] = values[i];
  });
  return JSON.stringify(row);
}

/**
 * Group commit for the single top-ups and withdrawals of the cards' balance requests, as orders
 * and grants are written (docs/decisions.md, "Card withdrawals and top-ups written with group
 * commit"; the batching: src/shared/group-commit.ts). A batch is one statement and one transaction
 * (`post_single_transfers`, sql/post_single_transfers.sql) in which each request's posting is
 * decided alone as `post_transfer` decides it; each request is answered only after its batch
 * committed. A repeated transaction id undoes its batch, whose requests are then written one by
 * one: the one that repeats it is answered `duplicate`, as `postTransfer` answers it.
 *
 * On PostgreSQL the batches go over a connection of the writer's own in pipeline mode (as the
 * order writer's); the embedded database runs them on its one connection.
 */
export class TransferWriter {
  readonly #db: Kysely<DB>;
  readonly #pipeline: PipelinedConnection | null;
  readonly #group: GroupCommit<TransferWrite, PostResult>;

  constructor(database: Pick<Database, 'db' | 'pipeline'>, options: GroupCommitOptions) {
    this.#db = database.db;
    this.#pipeline = database.pipeline();
    this.#group = new GroupCommit(options, (writes, way) => this.#execute(writes, way));
  }

  async post(write: TransferWrite): Promise<PostResult> {
    try {
      return await this.#group.submit(write);
    } catch (err) {
      if (isUniqueViolation(err)) return { status: 'duplicate' };
      throw err;
    }
  }

  /** The outcomes in the order of `writes`. */
  async #execute(writes: readonly TransferWrite[], way: WriteWay): Promise<(PostResult | undefined)[]> {
    const rows = `[${writes.map((w, i) => rowJson(i, w)).join(',')}]`;
    const answer = await writerQuery<Row>(this.#db, this.#pipeline, way, POST_SINGLE_TRANSFERS, [rows]);
    const outcomes = new Array<PostResult | undefined>(writes.length).fill(undefined);
    for (const r of answer) outcomes[r.row_no] = postResultOf(r);
    return outcomes;
  }
}
