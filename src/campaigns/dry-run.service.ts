import type { Kysely } from 'kysely';
import { type Static, Type } from 'typebox';
import { buildCampaignIndex, evaluateBasket } from '../engine/index.js';
import type { Campaign, ConsumerState, LoyaltyScheme } from '../engine/types.js';
import { parseBasket } from '../pos/basket.parse.js';
import { BasketSchema, LoyaltyInfoSchema, RewardSchema } from '../pos/basket.schemas.js';
import type { BasketBody, LoyaltyOut, RewardOut } from '../pos/basket.schemas.js';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import { loyaltyToWire, rewardsToWire, toEngineBasket } from './engine-wire.js';
import { RuleDefinitionError, campaignToEngine, schemeToEngine } from './rule.convert.js';
import { CampaignBodySchema, SchemeBodySchema } from './rule.schemas.js';
import type { CampaignBody, SchemeBody } from './rule.schemas.js';
import { type MerchantRef, checkOutlets, convertContext, invalidDefinition } from './rule.service.js';
import { loadMerchantRules } from './rules.store.js';

/**
 * Dry run (issue 5, item 6): a merchant posts a basket and campaigns or schemes that are not live
 * yet and sees the rewards with the reason each campaign did or did not apply. Nothing is stored.
 */

const PointsByRule = Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
  description: 'Keyed by the id of a live rule or by "draft-N" (N counts from 1 in the request).',
});

export const DryRunBodySchema = Type.Object({
  basket: BasketSchema,
  campaigns: Type.Optional(
    Type.Array(CampaignBodySchema, {
      maxItems: 100,
      description: 'Draft campaigns, shown as draft-1, draft-2 ... (CouponId -1, -2 ...).',
    }),
  ),
  schemes: Type.Optional(
    Type.Array(SchemeBodySchema, {
      maxItems: 20,
      description: 'Draft loyalty schemes, shown as draft-1, draft-2 ... (LoyaltyId -1, -2 ...).',
    }),
  ),
  includeLiveCampaigns: Type.Optional(
    Type.Boolean({
      default: true,
      description: "true: the merchant's live campaigns and schemes take part too.",
    }),
  ),
  outletId: Type.Optional(
    Type.Integer({
      description: 'Outlet of the basket; absent: no outlet (outlet-bound rules do not apply).',
    }),
  ),
  channel: Type.Optional(Type.Union([Type.Literal('pos'), Type.Literal('checkout')], { default: 'pos' })),
  consumer: Type.Optional(
    Type.Object(
      {
        points: Type.Optional(PointsByRule),
        usages: Type.Optional(PointsByRule),
      },
      {
        description:
          'An identified consumer with committed points per scheme and granted usages per campaign; absent: anonymous.',
      },
    ),
  ),
  groups: Type.Optional(
    Type.Record(Type.String(), Type.Array(Type.String()), {
      description: 'Article groups (with their ancestors) per PLU, for group selectors; absent: no groups.',
    }),
  ),
});
export type DryRunBody = Static<typeof DryRunBodySchema>;

export const ExplanationSchema = Type.Object({
  campaignId: Type.Union([Type.Integer(), Type.String()], { description: 'Live id, or "draft-N".' }),
  name: Type.String(),
  applied: Type.Boolean(),
  applications: Type.Integer(),
  reason: Type.String(),
});

export const DryRunResponseSchema = Type.Object({
  Rewards: Type.Array(RewardSchema),
  LoyaltyInfo: Type.Array(LoyaltyInfoSchema),
  explanations: Type.Array(ExplanationSchema, {
    description:
      'Every draft campaign, and every live campaign that names an article of the basket or is a bill campaign.',
  }),
  rulesVersion: Type.Integer({ description: 'Rules version of the live rules used (0 when none were).' }),
});

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

export async function dryRun(
  db: Kysely<DB>,
  merchant: MerchantRef,
  body: DryRunBody,
): Promise<DryRunResponse> {
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
