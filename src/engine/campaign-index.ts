import type { Campaign } from './types.js';

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
  readonly byPlu: ReadonlyMap<string, readonly IndexedCampaign[]>;
  readonly byGroup: ReadonlyMap<string, readonly IndexedCampaign[]>;
  /** product / quantity campaigns with an empty product list: they match every article. */
  readonly everyArticle: readonly IndexedCampaign[];
  /** Bill campaigns in processing order. */
  readonly bill: readonly IndexedCampaign[];
  /**
   * The product-level lists above as ranks, for the search without explanations (no entry is
   * read), all in one array: a list is its length followed by its ranks, found by its offset in
   * `ranks`. A lookup then yields a small integer and reads one array that stays in the cache,
   * instead of an object per list.
   */
  readonly ranks: Int32Array;
  readonly pluAt: ReadonlyMap<string, number>;
  readonly groupAt: ReadonlyMap<string, number>;
  /** Offset of the list of `everyArticle`; -1 when it is empty. */
  readonly everyArticleAt: number;
}

/**
 * The basket-level conditions of every campaign as arrays by rank (struct of arrays): a basket
 * with 10,000 campaigns checks about a hundred candidates, and reading a few numbers from compact
 * arrays costs far less than following a pointer to each campaign's objects.
 */
export interface BasketChecks {
  readonly id: Float64Array;
  readonly validFromMs: Float64Array;
  readonly validToMs: Float64Array;
  /** CHANNEL_BITS of the allowed channels. */
  readonly channelMask: Uint8Array;
  /** 1 when a consumer is required. */
  readonly requiresConsumer: Uint8Array;
  /** NaN = no limit. */
  readonly usageLimit: Float64Array;
  /** Infinity = unlimited. */
  readonly maxApplications: Float64Array;
  /**
   * 1 when the partition the campaign sits in does not settle its outlet: a coupon campaign
   * restricted to outlets (everything else is seen only by baskets of its outlets and codes).
   */
  readonly checkOutlet: Uint8Array;
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
  readonly checks: BasketChecks;
}

export function compareCampaigns(a: Campaign, b: Campaign): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.id !== b.id) return a.id - b.id;
  return b.version - a.version;
}

interface MutablePartition {
  byPlu: Map<string, IndexedCampaign[]>;
  byGroup: Map<string, IndexedCampaign[]>;
  everyArticle: IndexedCampaign[];
  bill: IndexedCampaign[];
  ranks: Int32Array;
  pluAt: Map<string, number>;
  groupAt: Map<string, number>;
  everyArticleAt: number;
}

const newPartition = (): MutablePartition => ({
  byPlu: new Map(),
  byGroup: new Map(),
  everyArticle: [],
  bill: [],
  ranks: new Int32Array(0),
  pluAt: new Map(),
  groupAt: new Map(),
  everyArticleAt: -1,
});

function finishPartition(p: MutablePartition): void {
  let size = p.everyArticle.length > 0 ? p.everyArticle.length + 1 : 0;
  for (const list of p.byPlu.values()) size += list.length + 1;
  for (const list of p.byGroup.values()) size += list.length + 1;
  const ranks = new Int32Array(size);
  let at = 0;
  const put = (list: readonly IndexedCampaign[]): number => {
    const start = at;
    ranks[at++] = list.length;
    for (const e of list) ranks[at++] = e.rank;
    return start;
  };
  for (const [key, list] of p.byPlu) p.pluAt.set(key, put(list));
  for (const [key, list] of p.byGroup) p.groupAt.set(key, put(list));
  if (p.everyArticle.length > 0) p.everyArticleAt = put(p.everyArticle);
  p.ranks = ranks;
}

function basketChecks(entries: readonly IndexedCampaign[]): BasketChecks {
  const n = entries.length;
  const checks: BasketChecks = {
    id: new Float64Array(n),
    validFromMs: new Float64Array(n),
    validToMs: new Float64Array(n),
    channelMask: new Uint8Array(n),
    requiresConsumer: new Uint8Array(n),
    usageLimit: new Float64Array(n),
    maxApplications: new Float64Array(n),
    checkOutlet: new Uint8Array(n),
  };
  for (const e of entries) {
    const r = e.rank;
    checks.id[r] = e.id;
    checks.validFromMs[r] = e.validFromMs;
    checks.validToMs[r] = e.validToMs;
    checks.channelMask[r] = e.channelMask;
    checks.requiresConsumer[r] = e.requiresConsumer ? 1 : 0;
    checks.usageLimit[r] = e.usageLimitPerConsumer ?? Number.NaN;
    checks.maxApplications[r] = e.maxApplications;
    checks.checkOutlet[r] = e.couponCode !== null && e.outletIds !== null ? 1 : 0;
  }
  return checks;
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
  const sorted = [...campaigns].sort(compareCampaigns);
  const everywhere = newPartition();
  const byOutlet = new Map<number, MutablePartition>();
  const byCoupon = new Map<string, MutablePartition>();
  const partitionOf = <K>(map: Map<K, MutablePartition>, key: K): MutablePartition => {
    let p = map.get(key);
    if (p === undefined) {
      p = newPartition();
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
    };
    entries.push(entry);
    if (campaign.couponCode !== null) addToPartition(partitionOf(byCoupon, campaign.couponCode), entry);
    else if (campaign.outletIds !== null) {
      for (const outletId of new Set(campaign.outletIds))
        addToPartition(partitionOf(byOutlet, outletId), entry);
    } else addToPartition(everywhere, entry);
  });

  for (const p of [everywhere, ...byOutlet.values(), ...byCoupon.values()]) finishPartition(p);
  return { everywhere, byOutlet, byCoupon, size: sorted.length, entries, checks: basketChecks(entries) };
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
    for (const code of new Set(couponCodes)) {
      const p = index.byCoupon.get(code);
      if (p !== undefined) out.push(p);
    }
  }
  return out;
}
