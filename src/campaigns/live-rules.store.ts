import { type Kysely, sql } from 'kysely';
import { buildCampaignIndex, type CampaignIndex } from '../engine/index.js';
import { type TierBasisRef, tierBases } from '../engine/tiers.js';
import type { Campaign, LoyaltyScheme, Selector } from '../engine/types.js';
import { BoundedCache } from '../shared/bounded-cache.js';
import type { DB } from '../store/schema.js';
import {
  type EngineCampaignDefinition,
  type EngineSchemeDefinition,
  engineCampaign,
} from './rule.convert.js';

/**
 * What basket upload and grant read: a merchant's live rules in engine form, a memo of the built
 * campaign index per (merchant, rules version), and the exact versions a basket was computed with.
 */

export interface MerchantRules {
  /** The merchant's rules version the rules were read at (same snapshot). */
  rulesVersion: number;
  /** Every campaign that is neither ended nor paused (validity is the engine's business: baskets carry their own time). */
  campaigns: Campaign[];
  schemes: LoyaltyScheme[];
  /** Campaigns with a budget (docs/decisions.md, "Budgets"): the only ones an upload reads budgets of. */
  budgetedCampaignIds?: readonly number[];
}

interface EngineRow {
  id: number;
  version: number;
  engine: Record<string, unknown>;
}

function campaignOf(row: EngineRow): Campaign {
  return engineCampaign(row.engine as unknown as EngineCampaignDefinition, row.id, row.version);
}

function schemeOf(row: EngineRow): LoyaltyScheme {
  return { ...(row.engine as unknown as EngineSchemeDefinition), id: row.id, version: row.version };
}

/** The merchant's live campaigns and schemes and the rules version they belong to, read in one snapshot. */
export async function loadMerchantRules(db: Kysely<DB>, merchantId: number): Promise<MerchantRules> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const merchant = await trx
        .selectFrom('merchants')
        .select('rules_version')
        .where('id', '=', merchantId)
        .executeTakeFirst();
      const campaigns = await trx
        .selectFrom('campaigns')
        .select(['id', 'version', 'engine'])
        .select((eb) =>
          eb
            .or([
              eb('budget_total_minor', 'is not', null),
              eb('budget_redemptions', 'is not', null),
              eb('budget_period', 'is not', null),
            ])
            .as('budgeted'),
        )
        .where('merchant_id', '=', merchantId)
        .where('ended_at', 'is', null)
        .where('paused_at', 'is', null)
        .orderBy('id')
        .execute();
      const schemes = await trx
        .selectFrom('loyalty_schemes')
        .select(['id', 'version', 'engine'])
        .where('merchant_id', '=', merchantId)
        .where('ended_at', 'is', null)
        .where('paused_at', 'is', null)
        .orderBy('id')
        .execute();
      return {
        rulesVersion: merchant?.rules_version ?? 0,
        campaigns: campaigns.map((r) => campaignOf(r as EngineRow)),
        schemes: schemes.map((r) => schemeOf(r as EngineRow)),
        budgetedCampaignIds: campaigns.filter((r) => r.budgeted === true).map((r) => r.id),
      };
    });
}

export interface RuleSet {
  readonly rulesVersion: number;
  readonly index: CampaignIndex;
  readonly schemes: readonly LoyaltyScheme[];
  readonly campaignsById: ReadonlyMap<number, Campaign>;
  /** Whether any campaign or scheme selects articles by group (else baskets need no groups). */
  readonly usesGroups: boolean;
  /** Campaigns with a per-consumer usage limit: the only ones whose usages need reading. */
  readonly usageLimitedCampaignIds: readonly number[];
  /** Campaigns with a budget: the only ones whose budgets an upload reads. */
  readonly budgetedCampaignIds: ReadonlySet<number>;
  /** The campaigns of the index, to evaluate without some of them (budgets). */
  readonly campaigns: readonly Campaign[];
  /** The bases of the schemes with status tiers: [] for a merchant without tiers (nothing more is read). */
  readonly tierBases: readonly TierBasisRef[];
  /**
   * The campaigns of the channel checkout (an empty list of channels: both) with a usage limit per
   * customer or limited to status tiers: an online order one of them may reward reads its
   * customer's uses and tiers to be priced (src/orders/order-campaigns.ts).
   */
  readonly orderCustomerCampaigns: readonly Campaign[];
}

function selectsGroup(selectors: readonly Selector[]): boolean {
  return selectors.some((s) => 'group' in s);
}

export function buildRuleSet(rules: MerchantRules): RuleSet {
  const usesGroups =
    rules.campaigns.some(
      (c) => selectsGroup(c.products) || selectsGroup(c.combination.map((part) => part.selector)),
    ) ||
    rules.schemes.some(
      (s) =>
        s.earn.some((e) => e.per === 'unit' && selectsGroup(e.products)) ||
        (s.reward?.type === 'product' && selectsGroup(s.reward.products)),
    );
  return {
    rulesVersion: rules.rulesVersion,
    index: buildCampaignIndex(rules.campaigns),
    schemes: rules.schemes,
    campaignsById: new Map(rules.campaigns.map((c) => [c.id, c])),
    usesGroups,
    usageLimitedCampaignIds: rules.campaigns.filter((c) => c.usageLimitPerConsumer !== null).map((c) => c.id),
    budgetedCampaignIds: new Set(rules.budgetedCampaignIds ?? []),
    campaigns: rules.campaigns,
    tierBases: tierBases(rules.schemes),
    orderCustomerCampaigns: rules.campaigns.filter(
      (c) =>
        (c.channels.length === 0 || c.channels.includes('checkout')) &&
        (c.usageLimitPerConsumer !== null || (c.tiers ?? null) !== null),
    ),
  };
}

/** The rule set's campaigns but those named, indexed (a campaign held back by its budget). */
export function indexWithout(ruleSet: RuleSet, without: ReadonlySet<number>): CampaignIndex {
  return buildCampaignIndex(ruleSet.campaigns.filter((c) => !without.has(c.id)));
}

/**
 * Built rule sets, least recently used first out, at most `maxMerchants` merchants. One entry per
 * merchant holds the newest version seen; concurrent requests for a version being loaded share
 * the load. Rules never change without a new rules version, so an entry is right for as long as
 * the merchant's rules_version equals its version: no expiry is needed, and several instances
 * behind one database stay consistent because every request brings the version it read.
 */
export class RuleSetCache {
  private readonly entries: BoundedCache<number, { rulesVersion: number; set: Promise<RuleSet> }>;

  constructor(
    private readonly db: Kysely<DB>,
    maxMerchants = 1000,
  ) {
    this.entries = new BoundedCache(maxMerchants);
  }

  get size(): number {
    return this.entries.size;
  }

  get(merchantId: number, rulesVersion: number): Promise<RuleSet> {
    const hit = this.entries.get(merchantId);
    if (hit !== undefined && hit.rulesVersion >= rulesVersion) return hit.set;
    const set = loadMerchantRules(this.db, merchantId).then(buildRuleSet);
    const entry = { rulesVersion, set };
    this.entries.set(merchantId, entry);
    // The version actually read may be newer than the one asked for; a failed load is forgotten.
    set.then(
      (s) => {
        if (this.entries.get(merchantId) === entry) entry.rulesVersion = s.rulesVersion;
      },
      () => {
        if (this.entries.get(merchantId) === entry) this.entries.delete(merchantId);
      },
    );
    return set;
  }
}

export interface VersionRef {
  id: number;
  version: number;
}

async function loadVersions(
  db: Kysely<DB>,
  table: 'campaign_versions' | 'loyalty_scheme_versions',
  refColumn: 'campaign_id' | 'scheme_id',
  merchantId: number,
  refs: readonly VersionRef[],
): Promise<EngineRow[]> {
  if (refs.length === 0) return [];
  const pairs = sql.join(refs.map((r) => sql`(${r.id}::bigint, ${r.version}::integer)`));
  const res = await sql<EngineRow>`
    SELECT ${sql.ref(refColumn)} AS id, version, engine FROM ${sql.table(table)}
    WHERE merchant_id = ${merchantId} AND (${sql.ref(refColumn)}, version) IN (${pairs})
    ORDER BY ${sql.ref(refColumn)}, version`.execute(db);
  return res.rows;
}

/**
 * The exact campaign versions a basket was computed with (for the grant and for returns), ended or
 * not. Refs of another merchant or unknown ones are simply absent from the answer.
 */
export async function loadCampaignVersions(
  db: Kysely<DB>,
  merchantId: number,
  refs: readonly VersionRef[],
): Promise<Campaign[]> {
  return (await loadVersions(db, 'campaign_versions', 'campaign_id', merchantId, refs)).map(campaignOf);
}

/** The exact loyalty-scheme versions a basket was computed with. */
export async function loadSchemeVersions(
  db: Kysely<DB>,
  merchantId: number,
  refs: readonly VersionRef[],
): Promise<LoyaltyScheme[]> {
  return (await loadVersions(db, 'loyalty_scheme_versions', 'scheme_id', merchantId, refs)).map(schemeOf);
}

/**
 * The exact campaign and scheme versions a basket was computed with, in the order of their ids:
 * taken from the merchant's built rule set where it holds the same version (versions never
 * change once written), read for the rest.
 */
export async function ruleVersions(
  db: Kysely<DB>,
  merchantId: number,
  refs: { readonly campaigns: readonly VersionRef[]; readonly schemes: readonly VersionRef[] },
  live: RuleSet | null,
): Promise<{ campaigns: Campaign[]; schemes: LoyaltyScheme[] }> {
  const liveSchemes = new Map(live?.schemes.map((s) => [s.id, s]));
  const campaigns: Campaign[] = [];
  const schemes: LoyaltyScheme[] = [];
  const missingCampaigns = refs.campaigns.filter((r) => {
    const c = live?.campaignsById.get(r.id);
    if (c?.version !== r.version) return true;
    campaigns.push(c);
    return false;
  });
  const missingSchemes = refs.schemes.filter((r) => {
    const s = liveSchemes.get(r.id);
    if (s?.version !== r.version) return true;
    schemes.push(s);
    return false;
  });
  const [readCampaigns, readSchemes] = await Promise.all([
    loadCampaignVersions(db, merchantId, missingCampaigns),
    loadSchemeVersions(db, merchantId, missingSchemes),
  ]);
  const byId = (a: { id: number }, b: { id: number }) => a.id - b.id;
  return {
    campaigns: [...campaigns, ...readCampaigns].sort(byId),
    schemes: [...schemes, ...readSchemes].sort(byId),
  };
}
