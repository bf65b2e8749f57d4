import { type Kysely, type Transaction, sql } from 'kysely';
import type { DB } from '../store/schema.js';
import type { PageRequest } from '../shared/paging.js';
import type { BudgetColumns } from './campaign-options.convert.js';

/**
 * Storage of campaigns and loyalty schemes ("rules"), one code path for both: a head row with the
 * current version and an immutable copy of every version. Every change raises the merchant's
 * `rules_version` in the same transaction, which keys the in-process rule caches
 * (live-rules.store.ts), and locks the merchant row, so changes of one merchant's rules are serialised.
 */

export type RuleKind = 'campaign' | 'scheme';

const TABLES = {
  campaign: { head: 'campaigns', versions: 'campaign_versions', ref: 'campaign_id' },
  scheme: { head: 'loyalty_schemes', versions: 'loyalty_scheme_versions', ref: 'scheme_id' },
} as const;

export interface RuleRecord {
  id: number;
  version: number;
  /** The body as the operator sent it (normalised). */
  definition: Record<string, unknown>;
  /** The engine's rule without id and version. */
  engine: Record<string, unknown>;
  endedAt: Date | null;
  /** When the merchant paused the rule; null while it runs. */
  pausedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface RuleWrite {
  name: string;
  /** Campaign type; null for schemes. */
  type: string | null;
  definition: unknown;
  engine: unknown;
  validFromMs: number | null;
  validToMs: number | null;
  /** Campaigns: the budgets, the head's current limits (docs/decisions.md, "Budgets"). */
  budget?: BudgetColumns;
}

interface HeadRow {
  id: number;
  version: number;
  definition: Record<string, unknown>;
  engine: Record<string, unknown>;
  ended_at: Date | null;
  paused_at: Date | null;
  created_at: Date;
  updated_at: Date;
}

function record(row: HeadRow): RuleRecord {
  return {
    id: row.id,
    version: row.version,
    definition: row.definition,
    engine: row.engine,
    endedAt: row.ended_at,
    pausedAt: row.paused_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const toDate = (ms: number | null): Date | null => (ms === null ? null : new Date(ms));

/** Raises the merchant's rules version (and locks the merchant row until the transaction ends). */
export async function bumpRulesVersion(trx: Transaction<DB>, merchantId: number): Promise<number> {
  const row = await trx
    .updateTable('merchants')
    .set((eb) => ({ rules_version: eb('rules_version', '+', 1) }))
    .where('id', '=', merchantId)
    .returning('rules_version')
    .executeTakeFirstOrThrow();
  return row.rules_version;
}

export async function insertRule(
  db: Kysely<DB>,
  kind: RuleKind,
  merchantId: number,
  write: RuleWrite,
  nowMs: number,
): Promise<{ id: number; version: number }> {
  const t = TABLES[kind];
  const now = new Date(nowMs);
  return db.transaction().execute(async (trx) => {
    await bumpRulesVersion(trx, merchantId);
    const typeColumn = kind === 'campaign' ? sql`, type` : sql``;
    const typeValue = kind === 'campaign' ? sql`, ${write.type}` : sql``;
    const head = await sql<{ id: number }>`
      INSERT INTO ${sql.table(t.head)}
        (merchant_id, version, name, definition, engine, valid_from, valid_to, created_at, updated_at${typeColumn})
      VALUES (${merchantId}, 1, ${write.name}, ${JSON.stringify(write.definition)}::jsonb,
        ${JSON.stringify(write.engine)}::jsonb, ${toDate(write.validFromMs)}, ${toDate(write.validToMs)},
        ${now}, ${now}${typeValue})
      RETURNING id`.execute(trx);
    const id = head.rows[0]?.id;
    if (id === undefined) throw new Error('insert returned no id');
    await setBudget(trx, kind, id, write);
    await insertVersion(trx, kind, merchantId, id, 1, write, now);
    return { id, version: 1 };
  });
}

/**
 * A change of a campaign waits for the grants that hold what is left of its budget: every grant of
 * a campaign with a budget locks the campaign's 'total' usage row (lock_campaign_budgets) until it
 * commits, so the change takes that lock too, before the campaign's own row (whose key a grant's
 * booking reads): a grant then books against the limits it read, and the next grant reads the new
 * ones (docs/decisions.md, "A budget changed while a grant of the campaign runs"). The row is made
 * when missing, which also waits for a grant that is making it.
 */
async function waitForRunningGrants(trx: Transaction<DB>, merchantId: number, id: number): Promise<void> {
  await sql`
    INSERT INTO campaign_budget_usage (merchant_id, campaign_id, period)
    SELECT c.merchant_id, c.id, 'total' FROM campaigns c WHERE c.merchant_id = ${merchantId} AND c.id = ${id}
    ON CONFLICT DO NOTHING`.execute(trx);
  await sql`
    SELECT 1 FROM campaign_budget_usage
     WHERE merchant_id = ${merchantId} AND campaign_id = ${id} AND period = 'total'
       FOR UPDATE`.execute(trx);
}

/** A campaign's budgets are columns of its head: the limits the next grant enforces. */
async function setBudget(trx: Transaction<DB>, kind: RuleKind, id: number, write: RuleWrite): Promise<void> {
  if (kind !== 'campaign' || write.budget === undefined) return;
  await trx.updateTable('campaigns').set(write.budget).where('id', '=', id).execute();
}

async function insertVersion(
  trx: Transaction<DB>,
  kind: RuleKind,
  merchantId: number,
  id: number,
  version: number,
  write: RuleWrite,
  now: Date,
): Promise<void> {
  const t = TABLES[kind];
  await sql`
    INSERT INTO ${sql.table(t.versions)} (merchant_id, ${sql.ref(t.ref)}, version, definition, engine, created_at)
    VALUES (${merchantId}, ${id}, ${version}, ${JSON.stringify(write.definition)}::jsonb,
      ${JSON.stringify(write.engine)}::jsonb, ${now})`.execute(trx);
}

export type UpdateOutcome = { version: number } | 'unknown' | 'ended';

/** Replaces the rule with a new version; the old versions stay as they were. */
export async function updateRuleRow(
  db: Kysely<DB>,
  kind: RuleKind,
  merchantId: number,
  id: number,
  write: RuleWrite,
  nowMs: number,
): Promise<UpdateOutcome> {
  const t = TABLES[kind];
  const now = new Date(nowMs);
  try {
    return await db.transaction().execute(async (trx) => {
      await bumpRulesVersion(trx, merchantId);
      if (kind === 'campaign') await waitForRunningGrants(trx, merchantId, id);
      const current = await sql<{ ended_at: Date | null }>`
      SELECT ended_at FROM ${sql.table(t.head)} WHERE merchant_id = ${merchantId} AND id = ${id} FOR UPDATE`.execute(
        trx,
      );
      const row = current.rows[0];
      if (row === undefined) throw new Rollback('unknown');
      if (row.ended_at !== null) throw new Rollback('ended');
      const typeSet = kind === 'campaign' ? sql`, type = ${write.type}` : sql``;
      const updated = await sql<{ version: number }>`
      UPDATE ${sql.table(t.head)} SET version = version + 1, name = ${write.name},
        definition = ${JSON.stringify(write.definition)}::jsonb, engine = ${JSON.stringify(write.engine)}::jsonb,
        valid_from = ${toDate(write.validFromMs)}, valid_to = ${toDate(write.validToMs)}, updated_at = ${now}${typeSet}
      WHERE merchant_id = ${merchantId} AND id = ${id}
      RETURNING version`.execute(trx);
      const version = updated.rows[0]?.version;
      if (version === undefined) throw new Rollback('unknown');
      await setBudget(trx, kind, id, write);
      await insertVersion(trx, kind, merchantId, id, version, write, now);
      return { version };
    });
  } catch (err) {
    if (err instanceof Rollback) return err.outcome;
    throw err;
  }
}

/** Leaves a transaction without a trace (the merchant's rules version is not raised either). */
class Rollback extends Error {
  constructor(readonly outcome: 'unknown' | 'ended') {
    super(outcome);
  }
}

/** Leaves a transaction that would change nothing, with the record as it is. */
class Unchanged extends Error {
  constructor(readonly record: RuleRecord) {
    super('unchanged');
  }
}

/**
 * Ends a rule: it stops applying, its history stays. Ending an ended rule changes nothing.
 * Returns the record after the change, or null when the merchant has no such rule.
 */
export async function endRuleRow(
  db: Kysely<DB>,
  kind: RuleKind,
  merchantId: number,
  id: number,
  nowMs: number,
): Promise<RuleRecord | null> {
  const t = TABLES[kind];
  const now = new Date(nowMs);
  return db.transaction().execute(async (trx) => {
    // The merchant row first, as every other change does, so that two changes never deadlock.
    await bumpRulesVersion(trx, merchantId);
    await sql`
      UPDATE ${sql.table(t.head)} SET ended_at = ${now}, updated_at = ${now}
      WHERE merchant_id = ${merchantId} AND id = ${id} AND ended_at IS NULL`.execute(trx);
    return readRuleIn(trx, kind, merchantId, id);
  });
}

export type PauseOutcome = RuleRecord | 'unknown' | 'ended';

/**
 * Pauses a running rule (`pause`) or resumes a paused one: it gives nothing at the till while
 * paused. Pausing a paused rule or resuming a running one changes nothing; an ended rule stays
 * ended ('ended').
 */
export async function setRulePausedRow(
  db: Kysely<DB>,
  kind: RuleKind,
  merchantId: number,
  id: number,
  pause: boolean,
  nowMs: number,
): Promise<PauseOutcome> {
  const t = TABLES[kind];
  const now = new Date(nowMs);
  try {
    return await db.transaction().execute(async (trx) => {
      await bumpRulesVersion(trx, merchantId);
      const current = await readRuleIn(trx, kind, merchantId, id);
      if (current === null) throw new Rollback('unknown');
      if (current.endedAt !== null) throw new Rollback('ended');
      if ((current.pausedAt !== null) === pause) throw new Unchanged(current);
      await sql`
        UPDATE ${sql.table(t.head)} SET paused_at = ${pause ? now : null}, updated_at = ${now}
        WHERE merchant_id = ${merchantId} AND id = ${id}`.execute(trx);
      const after = await readRuleIn(trx, kind, merchantId, id);
      if (after === null) throw new Rollback('unknown');
      return after;
    });
  } catch (err) {
    if (err instanceof Rollback) return err.outcome;
    if (err instanceof Unchanged) return err.record;
    throw err;
  }
}

async function readRuleIn(
  db: Kysely<DB>,
  kind: RuleKind,
  merchantId: number,
  id: number,
): Promise<RuleRecord | null> {
  const t = TABLES[kind];
  const res = await sql<HeadRow>`
    SELECT id, version, definition, engine, ended_at, paused_at, created_at, updated_at
    FROM ${sql.table(t.head)} WHERE merchant_id = ${merchantId} AND id = ${id}`.execute(db);
  const row = res.rows[0];
  return row === undefined ? null : record(row);
}

export function readRule(
  db: Kysely<DB>,
  kind: RuleKind,
  merchantId: number,
  id: number,
): Promise<RuleRecord | null> {
  return readRuleIn(db, kind, merchantId, id);
}

/** One stored version of a rule (every version stays retrievable). */
export async function readRuleVersion(
  db: Kysely<DB>,
  kind: RuleKind,
  merchantId: number,
  id: number,
  version: number,
): Promise<{ definition: Record<string, unknown>; engine: Record<string, unknown>; createdAt: Date } | null> {
  const t = TABLES[kind];
  const res = await sql<{
    definition: Record<string, unknown>;
    engine: Record<string, unknown>;
    created_at: Date;
  }>`
    SELECT definition, engine, created_at FROM ${sql.table(t.versions)}
    WHERE merchant_id = ${merchantId} AND ${sql.ref(t.ref)} = ${id} AND version = ${version}`.execute(db);
  const row = res.rows[0];
  return row === undefined
    ? null
    : { definition: row.definition, engine: row.engine, createdAt: row.created_at };
}

export type RuleStatus = 'active' | 'ended' | 'all';

/** A merchant's rules by id; `active` = not ended (whatever their validity), `ended` = ended. */
export async function listRules(
  db: Kysely<DB>,
  kind: RuleKind,
  merchantId: number,
  status: RuleStatus,
  page?: PageRequest,
): Promise<RuleRecord[]> {
  const t = TABLES[kind];
  // Paged by id, which only grows (docs/decisions.md, "Paging"): limit + 1 rows after the cursor's.
  const after = page?.after ? sql`AND id > ${Number(page.after[0])}` : sql``;
  const limit = page ? sql`LIMIT ${page.limit + 1}` : sql``;
  const filter =
    status === 'active'
      ? sql`AND ended_at IS NULL`
      : status === 'ended'
        ? sql`AND ended_at IS NOT NULL`
        : sql``;
  const res = await sql<HeadRow>`
    SELECT id, version, definition, engine, ended_at, paused_at, created_at, updated_at
    FROM ${sql.table(t.head)} WHERE merchant_id = ${merchantId} ${filter} ${after} ORDER BY id ${limit}`.execute(
    db,
  );
  return res.rows.map(record);
}

/** The merchant of a campaign or scheme addressed by its id alone; null when there is none. */
export async function ruleOwner(db: Kysely<DB>, kind: RuleKind, id: number): Promise<number | null> {
  const row =
    kind === 'campaign'
      ? await db.selectFrom('campaigns').select('merchant_id').where('id', '=', id).executeTakeFirst()
      : await db.selectFrom('loyalty_schemes').select('merchant_id').where('id', '=', id).executeTakeFirst();
  return row?.merchant_id ?? null;
}
