import { type ExclusiveVersions, exclusiveVersions } from './exclusive-versions.js';
import { buildCandidateKeys, type CandidateKeys } from './candidate-keys.js';
import { discountCode } from './discount.js';
import type { Campaign, Selector } from './types.js';

/**
 * A campaign with what evaluation needs precomputed once. The fields of the basket-level checks
 * are copied next to the rank: the entries are allocated one after the other when the index is
 * built, so checking a candidate reads memory that lies close together instead of following a
 * pointer to every campaign object and its arrays (with 10,000 campaigns, cache misses are most of
 * the cost of a basket).
 */
export interface IndexedCampaign {
  readonly campaign: Campaign;
  /** Processing order: priority descending, then id, then version descending (docs/decisions.md, "Campaigns and schemes"). */
  readonly rank: number;
  /** Per basket; Infinity = unlimited. */
  readonly maxApplications: number;
  readonly id: number;
  readonly type: Campaign['type'];
  /** Inclusive; -Infinity = open. */
  readonly validFromMs: number;
  /** Exclusive; Infinity = open. */
  readonly validToMs: number;
  readonly outletIds: readonly number[] | null;
  /** CHANNEL_BITS of the channels; both bits for an empty list. */
  readonly channelMask: number;
  readonly couponCode: string | null;
  readonly requiresConsumer: boolean;
  readonly usageLimitPerConsumer: number | null;
  /** Combinations: the part they are found by in the candidate keys (triggerSelector); else undefined. */
  readonly trigger: Selector | undefined;
}

export const CHANNEL_BITS: Readonly<Record<'pos' | 'checkout', number>> = { pos: 1, checkout: 2 };

function channelMask(channels: readonly ('pos' | 'checkout')[]): number {
  if (channels.length === 0) return CHANNEL_BITS.pos | CHANNEL_BITS.checkout;
  let mask = 0;
  for (const c of channels) mask |= CHANNEL_BITS[c];
  return mask;
}

/** Campaigns of one partition, looked up by what a basket position is. */
export interface CampaignPartition {
  /** 0 for `everywhere`; every outlet and coupon code partition has its own number. */
  readonly no: number;
  readonly byPlu: ReadonlyMap<string, readonly IndexedCampaign[]>;
  readonly byGroup: ReadonlyMap<string, readonly IndexedCampaign[]>;
  /** product / quantity campaigns with an empty product list: they match every article. */
  readonly everyArticle: readonly IndexedCampaign[];
  /** Bill campaigns in processing order. */
  readonly bill: readonly IndexedCampaign[];
  /** The bill campaigns again by threshold, exclusive ones apart (see ThresholdList). */
  readonly billShared: ThresholdList;
  readonly billExclusive: ThresholdList;
}

/**
 * Bill campaigns by minimum total, lowest first: a basket whose total left is `t` reaches exactly
 * the first `reachable(list, t)` of them and never reads the others.
 */
export interface ThresholdList {
  readonly ranks: Int32Array;
  readonly minTotalMinor: Float64Array;
}

/** How many campaigns of the list a total left of `totalMinor` reaches (minimum total <= total). */
export function reachable(list: ThresholdList, totalMinor: number): number {
  const t = list.minTotalMinor;
  let lo = 0;
  let hi = t.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((t[mid] as number) <= totalMinor) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The basket-level conditions of every campaign packed by rank, HOT_STRIDE numbers each, so that
 * checking a candidate reads one cache line of one array instead of a campaign object and its
 * arrays (with 10,000 campaigns cache misses are most of the cost of a basket).
 */
export const HOT_STRIDE = 16;
export const HOT = {
  validFromMs: 0,
  validToMs: 1,
  /** Infinity = unlimited. */
  maxApplications: 2,
  /** NaN = no limit. */
  usageLimit: 3,
  id: 4,
  flags: 5,
  minTotalMinor: 6,
  /**
   * Free piece units the campaign needs at the least (quantity: buy + get, combination: the sum of
   * its parts), 0 when any free unit may do.
   */
  minUnits: 7,
  /** The discount's DISCOUNT_* kind and its figure (discount.ts); read only by FLAG_PRODUCT_BY_ROW rows. */
  discountKind: 8,
  discountFigure: 9,
  version: 10,
} as const;
/** CHANNEL_BITS of the allowed channels take the low two bits of `flags`. */
export const FLAG_REQUIRES_CONSUMER = 4;
/**
 * The partition the campaign sits in does not settle its outlet: a coupon campaign restricted to
 * outlets (everything else is seen only by baskets of its outlets and codes).
 */
export const FLAG_CHECK_OUTLET = 8;
/** A combination: the candidate keys hold it under one part only (see triggerSelector). */
export const FLAG_COMBINATION = 16;
/** Limited to status tiers: the consumer's tier is checked against the campaign's `tiers`. */
export const FLAG_TIERS = 32;
/**
 * A product campaign without a schedule and with a discount of a known kind: the walk over the
 * candidates applies it from its packed row and its name (indexed-evaluation.ts) without reading
 * its object.
 */
export const FLAG_PRODUCT_BY_ROW = 64;

/**
 * The part a combination is found by: a PLU part when it has one (a basket rarely holds a given
 * article), else its first part. Every part needs units of its own, so a basket without a line for
 * this part cannot get the combination, whatever its other lines.
 */
export function triggerSelector(campaign: Campaign): Selector | undefined {
  const parts = campaign.combination;
  return (parts.find((part) => 'plu' in part.selector) ?? parts[0])?.selector;
}

function minUnits(c: Campaign): number {
  const n =
    c.type === 'quantity'
      ? c.buy + c.get
      : c.type === 'combination'
        ? c.combination.reduce((sum, part) => sum + part.quantity, 0)
        : 0;
  return Number.isSafeInteger(n) && n > 0 ? n : 0;
}

/**
 * Campaigns indexed so that evaluating a basket costs in proportion to the campaigns that can match
 * it, not to all campaigns. Three kinds of partition, disjoint for any one basket:
 * - `byCoupon`: campaigns with a coupon code, under that code (only a basket presenting the code
 *   can see them);
 * - `byOutlet`: campaigns without a code restricted to outlets, under each of their outlets;
 * - `everywhere`: the rest.
 * Within a partition, product-level campaigns are found by every PLU and group they name (a
 * combination by every part), product-level campaigns without selector and bill campaigns are kept
 * apart. Built once per campaign set and shared, read-only, by every evaluation.
 */
export interface CampaignIndex {
  readonly everywhere: CampaignPartition;
  readonly byOutlet: ReadonlyMap<number, CampaignPartition>;
  readonly byCoupon: ReadonlyMap<string, CampaignPartition>;
  readonly size: number;
  /** Every campaign by rank. */
  readonly entries: readonly IndexedCampaign[];
  /** HOT_STRIDE numbers per rank. */
  readonly hot: Float64Array;
  /** Every campaign's name by rank (what a reward carries), beside `hot`. */
  readonly names: readonly string[];
  /** The product-level lists of every partition by PLU, group and "every article" (candidate-keys.ts). */
  readonly keys: CandidateKeys;
  /**
   * Product campaigns set to stack, in order of application (stacking.ts), which is their rank here;
   * not in the lists above.
   */
  readonly stacked: readonly IndexedCampaign[];
  /** The stacked campaigns by PLU, group and "every article", as `keys` (their ranks index `stacked`). */
  readonly stackedKeys: CandidateKeys;
  /** The campaigns whose stacking mode is exclusive, by id and version. */
  readonly exclusive: ExclusiveVersions;
  /** The schemes campaigns are limited to tiers of: the consumer's tier is worked out only for these. */
  readonly tierSchemeIds: ReadonlySet<number>;
}

export function compareCampaigns(a: Campaign, b: Campaign): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.id !== b.id) return a.id - b.id;
  return b.version - a.version;
}

interface MutablePartition {
  no: number;
  byPlu: Map<string, IndexedCampaign[]>;
  byGroup: Map<string, IndexedCampaign[]>;
  everyArticle: IndexedCampaign[];
  bill: IndexedCampaign[];
  billShared: ThresholdList;
  billExclusive: ThresholdList;
}

const NO_BILLS: ThresholdList = { ranks: new Int32Array(0), minTotalMinor: new Float64Array(0) };

const newPartition = (no: number): MutablePartition => ({
  no,
  byPlu: new Map(),
  byGroup: new Map(),
  everyArticle: [],
  bill: [],
  billShared: NO_BILLS,
  billExclusive: NO_BILLS,
});

function thresholdList(entries: readonly IndexedCampaign[]): ThresholdList {
  if (entries.length === 0) return NO_BILLS;
  const sorted = [...entries].sort(
    (a, b) => a.campaign.minTotalMinor - b.campaign.minTotalMinor || a.rank - b.rank,
  );
  return {
    ranks: Int32Array.from(sorted, (e) => e.rank),
    minTotalMinor: Float64Array.from(sorted, (e) => e.campaign.minTotalMinor),
  };
}

function finishPartition(p: MutablePartition): void {
  p.billShared = thresholdList(p.bill.filter((e) => !e.campaign.exclusive));
  p.billExclusive = thresholdList(p.bill.filter((e) => e.campaign.exclusive));
}

function hotTable(entries: readonly IndexedCampaign[]): Float64Array {
  const hot = new Float64Array(entries.length * HOT_STRIDE);
  for (const e of entries) {
    const at = e.rank * HOT_STRIDE;
    hot[at + HOT.validFromMs] = e.validFromMs;
    hot[at + HOT.validToMs] = e.validToMs;
    hot[at + HOT.maxApplications] = e.maxApplications;
    hot[at + HOT.usageLimit] = e.usageLimitPerConsumer ?? Number.NaN;
    hot[at + HOT.id] = e.id;
    hot[at + HOT.flags] =
      e.channelMask |
      (e.requiresConsumer ? FLAG_REQUIRES_CONSUMER : 0) |
      (e.couponCode !== null && e.outletIds !== null ? FLAG_CHECK_OUTLET : 0) |
      (e.type === 'combination' ? FLAG_COMBINATION : 0) |
      (e.campaign.tiers ? FLAG_TIERS : 0) |
      (productByRow(e.campaign) ? FLAG_PRODUCT_BY_ROW : 0);
    hot[at + HOT.minTotalMinor] = e.campaign.minTotalMinor;
    hot[at + HOT.minUnits] = minUnits(e.campaign);
    const { kind, figure } = discountCode(e.campaign.discount);
    hot[at + HOT.discountKind] = kind;
    hot[at + HOT.discountFigure] = figure;
    hot[at + HOT.version] = e.campaign.version;
  }
  return hot;
}

function productByRow(c: Campaign): boolean {
  const { kind, figure } = discountCode(c.discount);
  return (
    c.type === 'product' &&
    c.schedule.length === 0 &&
    typeof c.id === 'number' &&
    kind >= 0 &&
    typeof figure === 'number' &&
    typeof c.version === 'number' &&
    typeof c.name === 'string'
  );
}

function addToPartition(p: MutablePartition, entry: IndexedCampaign): void {
  const campaign = entry.campaign;
  if (campaign.type === 'bill') {
    p.bill.push(entry);
    return;
  }
  const selectors =
    campaign.type === 'combination' ? campaign.combination.map((part) => part.selector) : campaign.products;
  if (selectors.length === 0) {
    // A combination without parts can never apply; product and quantity without a list match every article.
    if (campaign.type !== 'combination') p.everyArticle.push(entry);
    return;
  }
  for (const s of selectors) {
    const map = 'plu' in s ? p.byPlu : p.byGroup;
    const key = 'plu' in s ? s.plu : s.group;
    const list = map.get(key);
    if (list === undefined) map.set(key, [entry]);
    else if (list[list.length - 1] !== entry) list.push(entry);
  }
}

export function buildCampaignIndex(campaigns: readonly Campaign[]): CampaignIndex {
  const stacked = campaigns.filter(isStacked);
  const exclusive = exclusiveVersions(campaigns);
  const index = buildPlainIndex(
    stacked.length === 0 ? campaigns : campaigns.filter((c) => !isStacked(c)),
    compareCampaigns,
  );
  const own = buildPlainIndex(stacked, byApplicationOrder);
  const tierSchemeIds = new Set(campaigns.flatMap((c) => (c.tiers ? [c.tiers.schemeId] : [])));
  return { ...index, stacked: own.entries, stackedKeys: own.keys, exclusive, tierSchemeIds };
}

function buildPlainIndex(
  campaigns: readonly Campaign[],
  order: (a: Campaign, b: Campaign) => number,
): Omit<CampaignIndex, 'stacked' | 'stackedKeys' | 'exclusive' | 'tierSchemeIds'> {
  const sorted = [...campaigns].sort(order);
  const everywhere = newPartition(0);
  const byOutlet = new Map<number, MutablePartition>();
  const byCoupon = new Map<string, MutablePartition>();
  const partitionOf = <K>(map: Map<K, MutablePartition>, key: K): MutablePartition => {
    let p = map.get(key);
    if (p === undefined) {
      p = newPartition(1 + byOutlet.size + byCoupon.size);
      map.set(key, p);
    }
    return p;
  };

  const entries: IndexedCampaign[] = [];
  sorted.forEach((campaign, rank) => {
    const entry: IndexedCampaign = {
      campaign,
      rank,
      maxApplications: campaign.maxApplications ?? (campaign.type === 'bill' ? 1 : Number.POSITIVE_INFINITY),
      id: campaign.id,
      type: campaign.type,
      validFromMs: campaign.validFromMs ?? Number.NEGATIVE_INFINITY,
      validToMs: campaign.validToMs ?? Number.POSITIVE_INFINITY,
      outletIds: campaign.outletIds,
      channelMask: channelMask(campaign.channels),
      couponCode: campaign.couponCode,
      requiresConsumer: campaign.requiresConsumer,
      usageLimitPerConsumer: campaign.usageLimitPerConsumer,
      trigger: campaign.type === 'combination' ? triggerSelector(campaign) : undefined,
    };
    entries.push(entry);
    if (campaign.couponCode !== null) addToPartition(partitionOf(byCoupon, campaign.couponCode), entry);
    else if (campaign.outletIds !== null) {
      for (const outletId of new Set(campaign.outletIds))
        addToPartition(partitionOf(byOutlet, outletId), entry);
    } else addToPartition(everywhere, entry);
  });

  const partitions = [everywhere, ...byOutlet.values(), ...byCoupon.values()];
  for (const p of partitions) finishPartition(p);
  return {
    everywhere,
    byOutlet,
    byCoupon,
    size: sorted.length,
    entries,
    hot: hotTable(entries),
    names: entries.map((e) => e.campaign.name),
    keys: buildCandidateKeys(sorted.length, partitions, byOutlet, byCoupon),
  };
}

/** The partitions a basket can see: everywhere, its outlet, and each coupon code it presents. */
export function partitionsFor(
  index: CampaignIndex,
  outletId: number | null,
  couponCodes: readonly string[],
): CampaignPartition[] {
  const out = [index.everywhere];
  if (outletId !== null) {
    const p = index.byOutlet.get(outletId);
    if (p !== undefined) out.push(p);
  }
  if (index.byCoupon.size > 0) {
    for (const code of couponCodes) {
      const p = index.byCoupon.get(code);
      if (p !== undefined && !out.includes(p)) out.push(p);
    }
  }
  return out;
}

/** A product campaign set to stack with everything or within a group (other types keep today's rule). */
export function isStacked(c: Campaign): boolean {
  const mode = c.stacking?.mode;
  return c.type === 'product' && (mode === 'stackable' || mode === 'group');
}

const KIND_ORDER = { percent: 0, amount: 1, price: 2 } as const;

/**
 * Stacked campaigns: priority descending, then percentage before amount before price, then id (and
 * version descending, as in the processing order).
 */
function byApplicationOrder(x: Campaign, y: Campaign): number {
  if (x.priority !== y.priority) return y.priority - x.priority;
  const k = KIND_ORDER[x.discount.kind] - KIND_ORDER[y.discount.kind];
  return k !== 0 ? k : compareCampaigns(x, y);
}
