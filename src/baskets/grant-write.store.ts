import { CompiledQuery, type Kysely } from 'kysely';
import type { Consumer } from '../loyalty/points.store.js';
import { posBasketSourceRef } from '../receipts/receipt.store.js';
import type { DB } from '../store/schema.js';
import type { GrantResponse, StoredGrant, StoredResult } from './basket-model.js';
import { GroupCommit, type GroupCommitOptions } from '../shared/group-commit.js';
import { inBasketOrder } from './batch-order.js';
import type { BudgetBooking, BudgetLeft } from '../campaigns/campaign-budgets.js';
import type { TierChangedEvent } from '../loyalty/tier-change.js';

/** The consumer's points per scheme and usages per campaign, keyed by id, as the database read them. */
export interface ConsumerStateJson {
  readonly points: Readonly<Record<string, number>>;
  readonly usages: Readonly<Record<string, number>>;
  /** Status-tier measures per scheme, only for a basket whose schemes have tiers (`tier_measures`). */
  readonly tiers?: Readonly<Record<string, number>>;
}

/** What an evaluated grant books beyond its receipt and notification. */
export interface GrantBookingWrite {
  readonly loyalty: readonly {
    readonly schemeId: number;
    readonly earned: number;
    readonly spent: number;
    readonly expiresAtMs: number | null;
  }[];
  readonly usages: readonly { readonly campaignId: number; readonly count: number }[];
  /** The basket's unique codes the evaluation saw free, in code order (`free_campaign_codes`). */
  readonly codesSeen: readonly string[];
  /** The codes it redeems: one of each campaign it applied that was presented by a code. */
  readonly codes: readonly string[];
  /** What was left of the budgets of the basket's campaigns as the evaluation saw it. */
  readonly budgetsSeen: readonly BudgetLeft[];
  /** What the booking's rewards cost of their campaigns' budgets. */
  readonly budgets: readonly BudgetBooking[];
  /** The tier changes the booking makes, written to the outbox with it (docs/decisions.md, "Status tiers"). */
  readonly tierChanges: readonly TierChangedEvent[];
}

/** What the evaluation of a grant saw and found: booked only if what it saw still holds. */
export interface GrantEvaluated {
  readonly revision: number;
  readonly consumer: Consumer | null;
  readonly state: ConsumerStateJson | null;
  readonly booking: GrantBookingWrite;
}

/** One grant: what `grant_basket` (sql/grant_basket.sql) takes. */
export interface GrantWrite {
  readonly merchantId: number;
  readonly unitId: string;
  readonly basketId: string;
  readonly nowMs: number;
  readonly redeemedInPos: boolean;
  /** The id of the receipt, if the grant makes it (a new random one; see receipt.store.ts). */
  readonly receiptId: string;
  /** The terminal as a remembered answer described it: the write re-checks it. Null: looked up for this request. */
  readonly terminal: { readonly devKeyId: number; readonly checksumSecret: string } | null;
  /** Null until the basket was evaluated; a basket no rule touched is booked without. */
  readonly evaluated: GrantEvaluated | null;
  /** The grant to store, without its receipt id; the write sets the booking's consumer. */
  readonly stored: Omit<StoredGrant, 'receiptId'>;
}

export type GrantOutcome =
  | { readonly status: 'booked'; readonly notified: boolean }
  | { readonly status: 'granted'; readonly response: GrantResponse }
  | { readonly status: 'unknown' }
  | { readonly status: 'terminal_changed' }
  /** Uploaded again since it was evaluated: nothing booked, the grant starts over. */
  | { readonly status: 'changed' }
  | {
      readonly status: 'evaluate';
      readonly revision: number;
      readonly result: StoredResult;
      /** The consumer who holds the points now. */
      readonly consumer: Consumer | null;
      readonly state: ConsumerStateJson | null;
      /** The basket's unique codes no grant holds, in code order. */
      readonly codes: readonly string[];
      /** What is left of the budgets of the basket's campaigns (`lock_campaign_budgets`). */
      readonly budgets: readonly BudgetLeft[];
      /** The body, only for a basket stored before its parsed form was. */
      readonly body: unknown;
    };

interface OutcomeRow {
  status: string;
  revision: number | null;
  data: unknown;
  notified: boolean | null;
}

const GRANT_BASKETS = 'SELECT row_no, status, revision, data, notified FROM grant_baskets($1::json)';
const GRANT_BASKET =
  'SELECT status, revision, data, notified FROM grant_basket($1, $2, $3, $4::timestamptz, $5, $6, $7, ' +
  '$8, $9, $10, $11, $12::json, $13::json, $14::json, $15::json)';

function bookingJson(booking: GrantBookingWrite) {
  return {
    loyalty: booking.loyalty.map((l) => ({
      schemeId: l.schemeId,
      earned: l.earned,
      spent: l.spent,
      expiresAt: l.expiresAtMs === null ? null : new Date(l.expiresAtMs).toISOString(),
    })),
    usages: booking.usages,
    codesSeen: booking.codesSeen,
    codes: booking.codes,
    budgetsSeen: booking.budgetsSeen,
    budgets: booking.budgets,
    tierChanges: booking.tierChanges,
  };
}

/** The arguments of `grant_basket` by the names `grant_baskets` reads them, in its order. */
function fields(g: GrantWrite) {
  const e = g.evaluated;
  return {
    merchant_id: g.merchantId,
    unit_id: g.unitId,
    basket_id: g.basketId,
    now: new Date(g.nowMs).toISOString(),
    redeemed: g.redeemedInPos,
    receipt_id: g.receiptId,
    source_ref: posBasketSourceRef(g.unitId, g.basketId),
    check_unit: g.terminal !== null,
    dev_key_id: g.terminal?.devKeyId ?? null,
    checksum_secret: g.terminal?.checksumSecret ?? null,
    revision: e?.revision ?? null,
    // JSON from here on.
    consumer: e === null ? null : e.consumer,
    state: e === null ? null : e.state,
    booking: e === null ? null : bookingJson(e.booking),
    stored: g.stored,
  };
}

/** The arguments of `grant_basket` as statement parameters (JSON ones as text). */
function args(g: GrantWrite): unknown[] {
  const f = fields(g);
  const json = (v: unknown) => (v === null ? null : JSON.stringify(v));
  return [
    f.merchant_id,
    f.unit_id,
    f.basket_id,
    f.now,
    f.redeemed,
    f.receipt_id,
    f.source_ref,
    f.check_unit,
    f.dev_key_id,
    f.checksum_secret,
    f.revision,
    json(f.consumer),
    json(f.state),
    json(f.booking),
    json(f.stored),
  ];
}

function outcomeOf(row: OutcomeRow): GrantOutcome {
  switch (row.status) {
    case 'booked':
      return { status: 'booked', notified: row.notified === true };
    case 'granted':
      return { status: 'granted', response: row.data as GrantResponse };
    case 'unknown':
      return { status: 'unknown' };
    case 'terminal_changed':
      return { status: 'terminal_changed' };
    case 'changed':
      return { status: 'changed' };
    case 'evaluate': {
      const data = row.data as {
        result: StoredResult;
        consumer: Consumer | null;
        state: ConsumerStateJson | null;
        codes: string[] | null;
        budgets: BudgetLeft[] | null;
        body: unknown;
      };
      return {
        status: 'evaluate',
        revision: row.revision ?? 0,
        result: data.result,
        consumer: data.consumer,
        state: data.state,
        codes: data.codes ?? [],
        budgets: data.budgets ?? [],
        body: data.body,
      };
    }
    default:
      throw new Error(`grant_basket answered ${row.status}`);
  }
}

/** One grant in one statement, on the given database or transaction. */
export async function writeGrant(db: Kysely<DB>, g: GrantWrite): Promise<GrantOutcome> {
  const result = await db.executeQuery<OutcomeRow>(CompiledQuery.raw(GRANT_BASKET, args(g)));
  const [row] = result.rows;
  if (!row) throw new Error('grant_basket answered no row');
  return outcomeOf(row);
}

/**
 * Group commit for basket grants (`GroupCommit`): a batch is one statement and one transaction
 * (`grant_baskets`, which applies `grant_basket` to each row in order; a batch of one calls
 * `grant_basket` directly), each grant with its own outcome.
 */
export class GrantWriter {
  readonly #db: Kysely<DB>;
  readonly #group: GroupCommit<GrantWrite, GrantOutcome>;

  constructor(db: Kysely<DB>, options: GroupCommitOptions) {
    this.#db = db;
    this.#group = new GroupCommit(options, (grants) => this.#execute(grants));
  }

  write(grant: GrantWrite): Promise<GrantOutcome> {
    return this.#group.submit(grant);
  }

  async #execute(grants: readonly GrantWrite[]): Promise<GrantOutcome[]> {
    const [only] = grants;
    if (grants.length === 1 && only) return [await writeGrant(this.#db, only)];
    const rows = inBasketOrder(grants).map(({ item, index }) => ({ row_no: index, ...fields(item) }));
    const result = await this.#db.executeQuery<OutcomeRow & { row_no: number }>(
      CompiledQuery.raw(GRANT_BASKETS, [JSON.stringify(rows)]),
    );
    const outcomes = new Array<GrantOutcome | undefined>(grants.length);
    for (const r of result.rows) outcomes[r.row_no] = outcomeOf(r);
    return outcomes.map((o) => {
      if (o === undefined) throw new Error('grant_baskets answered no row for a grant');
      return o;
    });
  }
}
