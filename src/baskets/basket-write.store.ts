import type { Kysely } from 'kysely';
import { GroupCommit, type GroupCommitOptions, type WriteWay } from '../shared/group-commit.js';
import type { Database } from '../store/db.js';
import { joinJsonTexts } from '../store/json-texts.js';
import type { PipelinedConnection } from '../store/pipelined-connection.js';
import type { DB } from '../store/schema.js';
import { writerQuery } from '../store/writer-query.js';
import { inBasketOrder } from './batch-order.js';

/** One basket write of an upload: what `write_basket` (migrations 0005, 0007) takes. */
export interface BasketWrite {
  readonly merchantId: number;
  readonly unitId: string;
  readonly basketId: string;
  readonly outletId: number;
  readonly timestampUtcMs: number;
  readonly offsetMinutes: number;
  readonly currency: string;
  readonly totalValueMinor: number | null;
  readonly consumerToken: string | null;
  readonly giftCardId: string | null;
  /** The basket body as JSON text (valid JSON: parsed or produced by JSON.stringify). */
  readonly bodyJson: string;
  /** The body's BillNumber, null when it has none: what `body->>'BillNumber'` reads (migration 0049). */
  readonly billNumber: string | null;
  readonly billPdf: Buffer | null;
  /** The stored result as JSON text. */
  readonly resultJson: string;
  readonly uploadedAtMs: number;
  /** What the write re-checks about the terminal (see `write_basket`). */
  readonly devKeyId: number;
  readonly sortimentId: number | null;
  readonly rulesVersion: number;
  readonly profileId: number | null;
}

export type BasketWriterOptions = GroupCommitOptions;

/** The statements, and their names as prepared statements of the writer's pipelined connection. */
const WRITE_BASKETS = {
  name: 'write_baskets',
  text: 'SELECT row_no, revision FROM write_baskets($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)',
};
const WRITE_BASKET = {
  name: 'write_basket',
  text: 'SELECT write_basket($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19) AS revision',
};

const iso = (ms: number) => new Date(ms).toISOString();

/** What `write_basket` takes, in its order; the bill PDF in the form `pdf` gives it. */
function rowParams(w: BasketWrite, pdf: (b: Buffer) => Buffer | string): unknown[] {
  return [
    w.merchantId,
    w.unitId,
    w.basketId,
    w.outletId,
    iso(w.timestampUtcMs),
    w.offsetMinutes,
    w.currency,
    w.totalValueMinor,
    w.consumerToken,
    w.giftCardId,
    w.bodyJson,
    w.billNumber,
    w.billPdf === null ? null : pdf(w.billPdf),
    w.resultJson,
    iso(w.uploadedAtMs),
    w.devKeyId,
    w.sortimentId,
    w.rulesVersion,
    w.profileId,
  ];
}

const BODY = 10;
const RESULT = 13;

/**
 * The rows of a batch as `write_baskets` takes them: their indexes, then one array per parameter
 * of `write_basket`, in the order given, but bodies and results (JSON text already) each joined
 * into one text, which needs no escaping and the database parses once; the bill PDF
 * base64-encoded.
 */
function batchColumns(rows: readonly { item: BasketWrite; index: number }[]): unknown[] {
  const params = rows.map((r) => rowParams(r.item, (b) => b.toString('base64')));
  const columns = Array.from({ length: params[0]?.length ?? 0 }, (_, i) =>
    i === BODY || i === RESULT ? joinJsonTexts(params.map((p) => p[i]) as string[]) : params.map((p) => p[i]),
  );
  return [rows.map((r) => r.index), ...columns];
}

/**
 * Group commit for basket uploads (`GroupCommit`): a batch is one statement and one transaction
 * (`write_baskets`: its new baskets in one INSERT, any other row through `write_basket`, in order;
 * a batch of one calls `write_basket` directly). Each row keeps its own outcome (its new revision, or null when its
 * terminal changed or the basket is granted). Under load this turns many commits and round trips
 * into few: the database's work per basket falls to about 40% at batches of eight or more.
 *
 * On PostgreSQL the batches go over a connection of the writer's own in pipeline mode, as the
 * order writer's (docs/decisions.md, "Basket uploads are written with group commit"): a batch sent
 * while the one before is being written waits behind it in the same backend and starts the moment
 * the one before has committed. The embedded database, or PostgreSQL behind a pooler without a way
 * past it, writes through the pool.
 */
export class BasketWriter {
  readonly #db: Kysely<DB>;
  readonly #pipeline: PipelinedConnection | null;
  readonly #group: GroupCommit<BasketWrite, number | null>;

  constructor(database: Pick<Database, 'db' | 'pipeline'>, options: BasketWriterOptions) {
    this.#db = database.db;
    this.#pipeline = database.pipeline();
    this.#group = new GroupCommit(options, (writes, way) => this.#execute(writes, way));
  }

  /** Stores the basket; its new revision, or null when nothing was written. */
  write(write: BasketWrite): Promise<number | null> {
    return this.#group.submit(write);
  }

  /** Writes the rows in one statement; the revisions in the order of `writes`. */
  async #execute(writes: readonly BasketWrite[], way: WriteWay): Promise<(number | null)[]> {
    const [only] = writes;
    if (writes.length === 1 && only) return [await this.#executeOne(only, way)];
    const params = batchColumns(inBasketOrder(writes));
    const rows = await writerQuery<BatchRow>(this.#db, this.#pipeline, way, WRITE_BASKETS, params);
    const revisions = new Array<number | null>(writes.length).fill(null);
    for (const r of rows) revisions[r.row_no] = r.revision;
    return revisions;
  }

  /** A batch of one: the row function itself, without the batch's arrays. */
  async #executeOne(w: BasketWrite, way: WriteWay): Promise<number | null> {
    const params = rowParams(w, (b) => b);
    const rows = await writerQuery<OneRow>(this.#db, this.#pipeline, way, WRITE_BASKET, params);
    return rows[0]?.revision ?? null;
  }
}

interface BatchRow {
  row_no: number;
  revision: number | null;
}

interface OneRow {
  revision: number | null;
}
