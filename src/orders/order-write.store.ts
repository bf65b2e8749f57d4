import type { Kysely } from 'kysely';
import { GroupCommit, type GroupCommitOptions, type WriteWay } from '../shared/group-commit.js';
import type { Database } from '../store/db.js';
import { joinJsonTexts } from '../store/json-texts.js';
import type { OrderBookingFacts } from './order-model.js';
import type { PipelinedConnection } from '../store/pipelined-connection.js';
import type { DB } from '../store/schema.js';
import type { TierBasisRef } from '../engine/tiers.js';
import type { BudgetBooking } from '../campaigns/campaign-budgets.js';
import { writerQuery } from '../store/writer-query.js';

/** One order for `place_order` (sql/place_order.sql): everything it checks and writes. */
export interface OrderWrite extends OrderBookingFacts {
  readonly clientId: number;
  readonly merchantId: number;
  /** The merchant's time zone the order's times were read in. */
  readonly timeZone: string;
  /** The menu's facts pricing relied on (null: read afresh, nothing to re-check). */
  readonly menu: {
    readonly sortimentId: number;
    readonly version: number;
    readonly currentGen: number;
    readonly rulesVersion: number;
  } | null;
  readonly idempotencyKey: string;
  readonly requestSha256: string;
  /** The request's id, which a refusal's stored answer names (`error.requestId`). */
  readonly requestId: string;
  readonly nowMs: number;
  readonly keyTtlMs: number;
  readonly profileReference: string;
  /** SHA-256 of the reference, for a reference that is a one-time password. */
  readonly otpSha256: string;
  /** The stored pricing (`checkout_orders.priced`) as JSON text. */
  readonly pricedJson: string;
  /**
   * An order a campaign with a usage limit per customer rewards: its customer's profile, the uses
   * pricing read per campaign id, and the uses it books. Booked only while the customer's uses,
   * read under their lock, are those (`book_orders`); else the outcome is `stale`.
   */
  readonly customerUses?: {
    readonly profileId: number;
    readonly seen: Readonly<Record<string, number>>;
    readonly book: readonly { readonly campaignId: number; readonly uses: number }[];
    /** The tier measures pricing read per scheme id, with the bases and time zone to read them by. */
    readonly tiers?: {
      readonly bases: readonly TierBasisRef[];
      readonly timeZone: string;
      readonly seen: Readonly<Record<string, number>>;
    } | null;
  } | null;
  /**
   * What an order given a campaign with a budget books of it: booked only while each still fits
   * what is left under the budget's lock, the orders before it in the batch counted (`book_orders`);
   * else the outcome is `stale`.
   */
  readonly budgets?: readonly BudgetBooking[] | null;
}

export type OrderOutcome =
  /** Booked (200), refused (stored as the key's answer), or the key's stored answer. */
  | {
      readonly outcome: 'placed' | 'refused' | 'replay';
      readonly status: number;
      readonly body: string;
      /** Outbox messages written (the dispatcher is nudged after the commit). */
      readonly events: number;
    }
  /**
   * `in_flight` and `reused`: the key's refusals; `stale`: what the write re-checked changed (the
   * menu, the client, a customer's uses, what is left of a budget), or an order booking a
   * customer's uses or a budget whose key was seen before: the order use case takes it.
   */
  | { readonly outcome: 'in_flight' | 'reused' | 'stale' };

/** The batching (group commit) of the orders, and what the statement answers refusals with. */
export interface OrderWriterOptions extends GroupCommitOptions {
  /**
   * The refusals `place_order` may answer, by error name: their HTTP status and the text the
   * checkout wire sends (and the key keeps), as JSON `{name: {status, body}}`.
   */
  readonly refusalsJson: string;
}

interface Row {
  row_no: number;
  outcome: string;
  answer_status: number | null;
  answer_text: string | null;
  event_count: number;
}

/** The statement, and its name as a prepared statement of the writer's pipelined connection. */
const PLACE_ORDERS = {
  name: 'place_orders',
  text: 'SELECT row_no, outcome, answer_status, answer_text, event_count FROM place_orders($1::json, $2, $3, $4::json)',
};

const text = (v: string | null) => (v === null ? 'null' : JSON.stringify(v));

/**
 * One order of the batch as JSON, but its stored pricing and its answer, the two long texts: they
 * go apart, each batch's joined into one text (`joinJsonTexts`), so that the statement parses the
 * pricing once and the answer not at all, where inside the row's JSON both would be lexed twice.
 */
function rowJson(rowNo: number, w: OrderWrite): string {
  const now = new Date(w.nowMs).toISOString();
  return (
    `{"row_no":${rowNo},"client_id":${w.clientId},"merchant_id":${w.merchantId},` +
    `"time_zone":${text(w.timeZone)},"sortiment_id":${w.menu?.sortimentId ?? 'null'},` +
    `"menu_version":${w.menu?.version ?? 'null'},"menu_gen":${w.menu?.currentGen ?? 'null'},` +
    `"rules_version":${w.menu?.rulesVersion ?? 'null'},"idempotency_key":${text(w.idempotencyKey)},` +
    `"request_sha256":${text(w.requestSha256)},"now":"${now}","now_text":"${now}",` +
    `"key_ttl_ms":${w.keyTtlMs},"reference":${text(w.profileReference)},` +
    `"otp_sha256":${text(w.otpSha256)},"order_id":${text(w.orderId)},"basket_id":${text(w.basketId)},` +
    `"receipt_id":${text(w.receiptId)},"currency":${text(w.currency)},` +
    `"total_minor":${w.totalGrossMinor},"charge":${w.charge},` +
    `"liability_id":${w.liabilityAccountId ?? 'null'},"transaction_id":${text(w.transactionId)},` +
    `"reservation_id":${text(w.reservation?.reference ?? null)},` +
    `"cancel_remaining":${w.reservation?.cancelRemainingAmount === true},` +
    `"currency_json":${text(JSON.stringify(w.currency))},` +
    `"request_id":${text(w.requestId)},` +
    `"customer_uses":${w.customerUses ? JSON.stringify(w.customerUses) : 'null'},` +
    `"budgets":${w.budgets ? JSON.stringify(w.budgets) : 'null'}}`
  );
}

/** The error of an order that failed on its own: `place_orders` keeps it as "<SQLSTATE> <message>". */
function failedOnItsOwn(text: string | null): Error {
  const [, code, message] = /^([0-9A-Z]{5}) ([\s\S]*)$/.exec(text ?? '') ?? [];
  return Object.assign(new Error(`the order failed in the database: ${message ?? text ?? ''}`), {
    code: code ?? '',
  });
}

function outcomeOf(r: Row): OrderOutcome | null {
  switch (r.outcome) {
    case 'placed':
    case 'refused':
    case 'replay':
      if (r.answer_status === null || r.answer_text === null) return null;
      return { outcome: r.outcome, status: r.answer_status, body: r.answer_text, events: r.event_count };
    case 'in_flight':
    case 'reused':
    case 'stale':
      return { outcome: r.outcome };
    default:
      return null;
  }
}

/**
 * Group commit for checkout orders, as the basket writer does for uploads (docs/decisions.md,
 * "Checkout v1: orders in one statement"; the batching: src/shared/group-commit.ts). A batch is one
 * statement and one transaction (`place_orders`, sql/place_orders.sql); each order is answered only
 * after its batch committed. An order that failed on its own in its batch, and every order of a
 * batch that failed as a whole (a deadlock, a broken connection), is written once more in a batch
 * of its own, so that one order's trouble is only its own.
 *
 * On PostgreSQL the batches go over a connection of the writer's own in pipeline mode: a batch
 * sent while the one before is being written waits behind it in the same backend and starts the
 * moment the one before has committed, without a round trip through the server in between. The
 * embedded database runs them on its one connection.
 */
export class OrderWriter {
  readonly #db: Kysely<DB>;
  readonly #pipeline: PipelinedConnection | null;
  readonly #refusalsJson: string;
  readonly #group: GroupCommit<OrderWrite, OrderOutcome>;

  constructor(database: Pick<Database, 'db' | 'pipeline'>, options: OrderWriterOptions) {
    this.#db = database.db;
    this.#pipeline = database.pipeline();
    this.#refusalsJson = options.refusalsJson;
    this.#group = new GroupCommit(options, (writes, way) => this.#execute(writes, way));
  }

  place(write: OrderWrite): Promise<OrderOutcome> {
    return this.#group.submit(write);
  }

  /** The outcomes in the order of `writes`; undefined for an order that failed on its own. */
  async #execute(writes: readonly OrderWrite[], way: WriteWay): Promise<(OrderOutcome | undefined)[]> {
    const params = [
      `[${writes.map((w, i) => rowJson(i, w)).join(',')}]`,
      joinJsonTexts(writes.map((w) => w.pricedJson)),
      joinJsonTexts(writes.map((w) => w.answerHead)),
      this.#refusalsJson,
    ];
    const answer = await writerQuery<Row>(this.#db, this.#pipeline, way, PLACE_ORDERS, params);
    const outcomes = new Array<OrderOutcome | undefined>(writes.length).fill(undefined);
    for (const r of answer) {
      // Alone in its batch, an order that failed on its own fails with the database's error, so
      // that the answer is the one that error calls for (a full disk: 503, to repeat).
      if (r.outcome === 'error' && writes.length === 1) throw failedOnItsOwn(r.answer_text);
      outcomes[r.row_no] = outcomeOf(r) ?? undefined;
    }
    return outcomes;
  }
}
