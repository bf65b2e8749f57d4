import { buildCampaignIndex, evaluateBasket } from '../engine/index.js';
import type { Campaign, ConsumerState, LoyaltyScheme } from '../engine/types.js';
import { parseBasket } from './basket.parse.js';
import type { BasketBody, LoyaltyOut, RewardOut } from './basket.types.js';
import { AppError } from '../shared/errors.js';
import type { Deps } from '../store/deps.js';
import { loyaltyToWire, rewardsToWire, toEngineBasket } from './engine-adapter.js';
import { RuleDefinitionError, campaignToEngine, schemeToEngine } from '../campaigns/rule.convert.js';
import type { CampaignBody, SchemeBody } from '../campaigns/rule.schemas.js';
import {
  type MerchantRef,
  checkOutlets,
  convertContext,
  invalidDefinition,
} from '../campaigns/rule.service.js';
import { loadMerchantRules } from '../campaigns/rules.store.js';

/**
 * Dry run (docs/decisions.md, "Rewards engine and loyalty"): a merchant posts a basket and
 * campaigns or schemes that are not live yet and sees the rewards with the reason each campaign
 * did or did not apply. Nothing is stored.
 */

/** A dry run's request: the POS basket, drafts and the stand-ins for what an upload would read. */
export interface DryRunBody {
  basket: BasketBody;
  campaigns?: CampaignBody[];
  schemes?: SchemeBody[];
  includeLiveCampaigns?: boolean;
  outletId?: number;
  channel?: 'pos' | 'checkout';
  consumer?: { points?: Record<string, number>; usages?: Record<string, number> };
  groups?: Record<string, string[]>;
}

export interface DryRunResponse {
  Rewards: RewardOut[];
  LoyaltyInfo: LoyaltyOut[];
  explanations: {
    campaignId: number | string;
    name: string;
    applied: boolean;
    applications: number;
    reason: string;
  }[];
  rulesVersion: number;
}

/** Drafts get engine ids above every stored id (they would get the next ids once created). */
const DRAFT_BASE = 2 ** 52;
const isDraft = (engineId: number) => engineId > DRAFT_BASE;
const draftNumber = (engineId: number) => engineId - DRAFT_BASE;

function convertDrafts<B, R>(
  drafts: readonly B[] | undefined,
  field: string,
  convert: (body: B, index: number) => R,
): R[] {
  return (drafts ?? []).map((body, i) => {
    try {
      return convert(body, i);
    } catch (err) {
      if (err instanceof RuleDefinitionError) throw invalidDefinition(err, `${field}[${i}].`);
      throw err;
    }
  });
}

function consumerMap(values: Record<string, number> | undefined, field: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const [key, value] of Object.entries(values ?? {})) {
    const draft = /^draft-(\d+)$/i.exec(key);
    const id = draft ? DRAFT_BASE + Number(draft[1]) : /^\d+$/.test(key) ? Number(key) : Number.NaN;
    if (!Number.isSafeInteger(id)) {
      throw new AppError('ruleInvalid', `${field} keys must be rule ids or draft-N, not "${key}".`, {
        details: { field },
      });
    }
    out.set(id, value);
  }
  return out;
}

export async function dryRun({ db }: Deps, merchant: MerchantRef, body: DryRunBody): Promise<DryRunResponse> {
  const parsed = parseBasket(body.basket as BasketBody, merchant.currency, merchant.timeZone);
  const ctx = convertContext(merchant);
  const outletId = body.outletId ?? null;
  if (outletId !== null) await checkOutlets(db, merchant.id, [outletId], 'outletId');

  const drafts: Campaign[] = convertDrafts(body.campaigns, 'campaigns', (b: CampaignBody, i) => ({
    ...campaignToEngine(b, ctx),
    id: DRAFT_BASE + i + 1,
    version: 0,
  }));
  const draftSchemes: LoyaltyScheme[] = convertDrafts(body.schemes, 'schemes', (b: SchemeBody, i) => ({
    ...schemeToEngine(b, ctx),
    id: DRAFT_BASE + i + 1,
    version: 0,
  }));
  for (const [i, d] of drafts.entries())
    await checkOutlets(db, merchant.id, d.outletIds, `campaigns[${i}].outletIds`);
  for (const [i, s] of draftSchemes.entries())
    await checkOutlets(db, merchant.id, s.outletIds, `schemes[${i}].outletIds`);

  const live =
    body.includeLiveCampaigns === false
      ? { rulesVersion: 0, campaigns: [], schemes: [] }
      : await loadMerchantRules(db, merchant.id);
  const campaigns = [...live.campaigns, ...drafts];
  const schemes = [...live.schemes, ...draftSchemes];
  const names = new Map(campaigns.map((c) => [c.id, c.name]));

  const consumer: ConsumerState | null =
    body.consumer === undefined
      ? null
      : {
          points: consumerMap(body.consumer.points, 'consumer.points'),
          usages: consumerMap(body.consumer.usages, 'consumer.usages'),
        };
  const basket = toEngineBasket(parsed, {
    outletId,
    channel: body.channel ?? 'pos',
    couponCodes: parsed.contextIdentifiers,
    consumerKnown: consumer !== null,
    groupsByPlu: new Map(Object.entries(body.groups ?? {})),
  });

  const result = evaluateBasket(buildCampaignIndex(campaigns), schemes, basket, consumer, { explain: true });

  const wireId = (id: number) => (isDraft(id) ? -draftNumber(id) : id);
  const explained = new Set(result.explanations.map((e) => e.campaignId));
  const explanations: DryRunResponse['explanations'] = result.explanations.map((e) => ({
    campaignId: isDraft(e.campaignId) ? `draft-${draftNumber(e.campaignId)}` : e.campaignId,
    name: names.get(e.campaignId) ?? '',
    applied: e.applied,
    applications: e.applications,
    reason: e.reason,
  }));
  // A draft the engine never looked at named no article of the basket: say so rather than stay silent.
  for (const d of drafts) {
    if (explained.has(d.id)) continue;
    explanations.push({
      campaignId: `draft-${draftNumber(d.id)}`,
      name: d.name,
      applied: false,
      applications: 0,
      reason: 'no article of the basket matches its products',
    });
  }

  return {
    Rewards: rewardsToWire(result, parsed.exponent, wireId),
    LoyaltyInfo: loyaltyToWire(result, parsed.exponent, wireId),
    explanations,
    rulesVersion: live.rulesVersion,
  };
}
