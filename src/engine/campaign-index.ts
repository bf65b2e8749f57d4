import type { Campaign } from './types.js';

/** A campaign with what evaluation needs precomputed once. */
export interface IndexedCampaign {
  readonly campaign: Campaign;
  /** Processing order: priority descending, then id, then version descending (CONTRACT section 2). */
  readonly rank: number;
  /** Per basket; Infinity = unlimited. */
  readonly maxApplications: number;
}

/**
 * Campaigns indexed so that evaluating a basket costs in proportion to the campaigns that can match
 * its positions: product-level campaigns by every PLU and group they name (a combination by every
 * part), product-level campaigns without a selector (they match every article) apart, bill
 * campaigns apart. Built once per campaign set and shared, read-only, by every evaluation.
 */
export interface CampaignIndex {
  readonly byPlu: ReadonlyMap<string, readonly IndexedCampaign[]>;
  readonly byGroup: ReadonlyMap<string, readonly IndexedCampaign[]>;
  /** product / quantity campaigns with an empty product list. */
  readonly everyArticle: readonly IndexedCampaign[];
  /** Bill campaigns in processing order. */
  readonly bill: readonly IndexedCampaign[];
  readonly size: number;
}

export function compareCampaigns(a: Campaign, b: Campaign): number {
  if (a.priority !== b.priority) return b.priority - a.priority;
  if (a.id !== b.id) return a.id - b.id;
  return b.version - a.version;
}

export function buildCampaignIndex(campaigns: readonly Campaign[]): CampaignIndex {
  const sorted = [...campaigns].sort(compareCampaigns);
  const byPlu = new Map<string, IndexedCampaign[]>();
  const byGroup = new Map<string, IndexedCampaign[]>();
  const everyArticle: IndexedCampaign[] = [];
  const bill: IndexedCampaign[] = [];

  const add = (map: Map<string, IndexedCampaign[]>, key: string, entry: IndexedCampaign): void => {
    const list = map.get(key);
    if (list === undefined) map.set(key, [entry]);
    else if (list[list.length - 1] !== entry) list.push(entry);
  };

  sorted.forEach((campaign, rank) => {
    const entry: IndexedCampaign = {
      campaign,
      rank,
      maxApplications: campaign.maxApplications ?? (campaign.type === 'bill' ? 1 : Number.POSITIVE_INFINITY),
    };
    if (campaign.type === 'bill') {
      bill.push(entry);
      return;
    }
    const selectors =
      campaign.type === 'combination' ? campaign.combination.map((part) => part.selector) : campaign.products;
    if (selectors.length === 0) {
      // A combination without parts can never apply; product and quantity without a list match every article.
      if (campaign.type !== 'combination') everyArticle.push(entry);
      return;
    }
    for (const s of selectors) {
      if ('plu' in s) add(byPlu, s.plu, entry);
      else add(byGroup, s.group, entry);
    }
  });

  return { byPlu, byGroup, everyArticle, bill, size: sorted.length };
}
