import type { Kysely } from 'kysely';
import { AppError } from '../shared/errors.js';
import { currencyExponent, minorToMajor } from '../shared/money.js';
import { readBudgetUsage } from './campaign-budgets.store.js';
import { budgetRemaining } from './campaign-budgets.js';
import { findMerchantById, findMerchantByName, outletsAmong } from '../merchants/merchant.store.js';
import type { Deps } from '../store/deps.js';
import type { DB } from '../store/schema.js';
import {
  type ConvertContext,
  RuleDefinitionError,
  campaignToEngine,
  schemeToEngine,
} from './rule.convert.js';
import type { CampaignBody, SchemeBody } from './rule.schemas.js';
import { convertBudget } from './campaign-options.convert.js';
import { checkTierLimit } from './tier-limit.convert.js';
import {
  type RuleKind,
  type RuleRecord,
  type RuleWrite,
  type UpdateOutcome,
  type PauseOutcome,
  endRuleRow,
  insertRule,
  readRule,
  setRulePausedRow,
  updateRuleRow,
} from './rule-versions.store.js';

/** Use cases of campaign and scheme management that the operator routes and the dry run share. */

export interface MerchantRef {
  id: number;
  serviceUserName: string;
  currency: string;
  timeZone: string;
  exponent: number;
}

/** The merchant a rule belongs to; 404 not_found on the operator API when there is none. */
export async function merchantByName(db: Kysely<DB>, serviceUserName: string): Promise<MerchantRef> {
  const merchant = await findMerchantByName(db, serviceUserName);
  if (!merchant) throw new AppError('notFound', `No merchant "${serviceUserName}".`);
  return { ...merchant, exponent: currencyExponent(merchant.currency) };
}

export async function merchantById(db: Kysely<DB>, id: number): Promise<MerchantRef> {
  const merchant = await findMerchantById(db, id);
  if (!merchant) throw new Error(`merchant ${id} of a stored rule does not exist`);
  return { ...merchant, exponent: currencyExponent(merchant.currency) };
}

export function convertContext(merchant: MerchantRef): ConvertContext {
  return { exponent: merchant.exponent, timeZone: merchant.timeZone };
}

/** A definition error as the operator API answers it: 400 invalid_request naming the field. */
export function invalidDefinition(err: RuleDefinitionError, prefix = ''): AppError {
  const field = `${prefix}${err.field}`;
  return new AppError('ruleInvalid', `${field} ${err.problem}`, { details: { field } });
}

/** Every outlet id must be an outlet of the merchant (a foreign outlet answers like an unknown one). */
export async function checkOutlets(
  db: Kysely<DB>,
  merchantId: number,
  outletIds: readonly number[] | null,
  field = 'outletIds',
): Promise<void> {
  if (outletIds === null || outletIds.length === 0) return;
  const known = await outletsAmong(db, merchantId, outletIds);
  const unknown = outletIds.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new AppError(
      'ruleInvalid',
      `${field} names ${unknown.join(', ')}, not an outlet of this merchant.`,
      {
        details: { field, unknownOutletIds: unknown },
      },
    );
  }
}

/** A definition converted to engine units, or 400 naming the field. */
function converted<T>(convert: () => T): T {
  try {
    return convert();
  } catch (err) {
    if (err instanceof RuleDefinitionError) throw invalidDefinition(err);
    throw err;
  }
}

async function ruleWrite(
  db: Kysely<DB>,
  merchant: MerchantRef,
  body: CampaignBody | SchemeBody,
  engine: ReturnType<typeof campaignToEngine> | ReturnType<typeof schemeToEngine>,
  type: RuleWrite['type'],
): Promise<RuleWrite> {
  await checkOutlets(db, merchant.id, engine.outletIds);
  return {
    name: engine.name,
    type,
    definition: body,
    engine,
    validFromMs: engine.validFromMs,
    validToMs: engine.validToMs,
  };
}

/** Validates and converts a campaign body for storage; 400 naming the field on any problem. */
export async function campaignWrite(
  db: Kysely<DB>,
  merchant: MerchantRef,
  body: CampaignBody,
): Promise<RuleWrite> {
  const engine = converted(() => campaignToEngine(body, convertContext(merchant)));
  const budget = converted(() => convertBudget(body, merchant.exponent));
  const scheme = engine.tiers ? await readRule(db, 'scheme', merchant.id, engine.tiers.schemeId) : null;
  converted(() => checkTierLimit(engine.tiers ?? null, scheme));
  return { ...(await ruleWrite(db, merchant, body, engine, engine.type)), budget };
}

/** Validates and converts a loyalty-scheme body for storage; 400 naming the field on any problem. */
export async function schemeWrite(
  db: Kysely<DB>,
  merchant: MerchantRef,
  body: SchemeBody,
): Promise<RuleWrite> {
  const engine = converted(() => schemeToEngine(body, convertContext(merchant)));
  return ruleWrite(db, merchant, body, engine, null);
}

/** The read shape of a stored rule: its definition as sent plus id, version and bookkeeping. */
export function recordView(r: RuleRecord): Record<string, unknown> {
  return {
    ...r.definition,
    id: r.id,
    version: r.version,
    endedAt: r.endedAt === null ? null : r.endedAt.toISOString(),
    pausedAt: r.pausedAt === null ? null : r.pausedAt.toISOString(),
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  };
}

/**
 * Campaign views with what is left of their budgets now (`budgetRemaining`, major units; null: no
 * budget); other rules' views as they are.
 */
export async function withBudgetsRemaining<T extends Record<string, unknown>>(
  db: Kysely<DB>,
  kind: RuleKind,
  merchant: { id: number; exponent: number },
  views: readonly T[],
  nowMs: number,
): Promise<T[]> {
  if (kind !== 'campaign') return [...views];
  const ids = views.map((v) => Number(v.id));
  const usage = await readBudgetUsage(db, merchant.id, ids, nowMs);
  const left = new Map(usage.map((u) => [u.campaignId, budgetRemaining(u)]));
  const major = (minor: number | null) => (minor === null ? null : minorToMajor(minor, merchant.exponent));
  return views.map((v) => {
    const b = left.get(Number(v.id));
    const budgetRemaining =
      b === undefined
        ? null
        : {
            total: major(b.totalMinor),
            redemptions: b.redemptions,
            period: b.period && {
              start: b.period.start,
              amount: minorToMajor(b.period.leftMinor, merchant.exponent),
            },
          };
    return { ...v, budgetRemaining };
  });
}

export const KIND_NAMES: Record<RuleKind, string> = { campaign: 'campaign', scheme: 'loyalty scheme' };

/** A new campaign or loyalty scheme of the merchant, written now. */
export function createRule(
  deps: Deps,
  kind: RuleKind,
  merchantId: number,
  write: RuleWrite,
): Promise<{ id: number; version: number }> {
  return insertRule(deps.db, kind, merchantId, write, deps.clock.nowMs());
}

/** Replaces the rule with a new version now; 'ended' once it has ended, 'unknown' when the merchant has none. */
export function updateRule(
  deps: Deps,
  kind: RuleKind,
  merchantId: number,
  id: number,
  write: RuleWrite,
): Promise<UpdateOutcome> {
  return updateRuleRow(deps.db, kind, merchantId, id, write, deps.clock.nowMs());
}

/** Ends a rule now (its history stays); null when the merchant has no such rule. */
export function endRule(
  deps: Deps,
  kind: RuleKind,
  merchantId: number,
  id: number,
): Promise<RuleRecord | null> {
  return endRuleRow(deps.db, kind, merchantId, id, deps.clock.nowMs());
}

/**
 * Pauses (`pause` true) or resumes a rule now: paused, it gives nothing at the till until resumed.
 * 'ended' once it has ended, 'unknown' when the merchant has none.
 */
export function setRulePaused(
  deps: Deps,
  kind: RuleKind,
  merchantId: number,
  id: number,
  pause: boolean,
): Promise<PauseOutcome> {
  return setRulePausedRow(deps.db, kind, merchantId, id, pause, deps.clock.nowMs());
}
