import { buildCampaignIndex } from '../../src/engine/campaign-index.js';
import { evaluateBasket } from '../../src/engine/evaluate.js';
import type {
  Campaign,
  ConsumerState,
  EngineBasket,
  EnginePosition,
  EngineResult,
  Instant,
  LoyaltyScheme,
} from '../../src/engine/types.js';

/** An ISO 8601 text with offset as an Instant (tests may parse dates; the engine never reads a clock). */
export function at(iso: string): Instant {
  const m = /([+-])(\d{2}):(\d{2})$/.exec(iso);
  const offsetMinutes = m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
  return { utcMs: Date.parse(iso), offsetMinutes };
}

export const MONDAY_NOON = at('2026-03-02T12:00:00+00:00');

export function campaign(over: Partial<Campaign> & Pick<Campaign, 'id' | 'type' | 'discount'>): Campaign {
  return {
    version: 1,
    name: `Campaign ${over.id}`,
    products: [],
    combination: [],
    buy: 0,
    get: 0,
    minTotalMinor: 0,
    maxApplications: null,
    couponCode: null,
    requiresConsumer: false,
    validFromMs: null,
    validToMs: null,
    schedule: [],
    outletIds: null,
    channels: [],
    priority: 0,
    exclusive: false,
    usageLimitPerConsumer: null,
    ...over,
  };
}

/** A piece position: `pieces` x `unitPriceMinor`. */
export function pos(
  positionId: number,
  productId: string | null,
  unitPriceMinor: number,
  pieces = 1,
  over: Partial<EnginePosition> = {},
): EnginePosition {
  return {
    positionId,
    productId,
    groupIds: [],
    unit: 0,
    pieces,
    unitPriceMinor,
    lineGrossMinor: unitPriceMinor * pieces,
    hasDiscounts: false,
    orderTime: null,
    ...over,
  };
}

/** A kg position: price per kg and the line value the caller computed. */
export function kg(
  positionId: number,
  productId: string,
  pricePerKgMinor: number,
  lineGrossMinor: number,
  over: Partial<EnginePosition> = {},
): EnginePosition {
  return pos(positionId, productId, pricePerKgMinor, 0, { unit: 1, lineGrossMinor, ...over });
}

export function basket(positions: EnginePosition[], over: Partial<EngineBasket> = {}): EngineBasket {
  return {
    timestamp: MONDAY_NOON,
    hasDiscounts: false,
    outletId: 1,
    channel: 'pos',
    couponCodes: [],
    consumerKnown: false,
    positions,
    ...over,
  };
}

export function consumer(
  usages: Record<number, number> = {},
  points: Record<number, number> = {},
): ConsumerState {
  const toMap = (r: Record<number, number>): Map<number, number> =>
    new Map(Object.entries(r).map(([k, v]) => [Number(k), v]));
  return { usages: toMap(usages), points: toMap(points) };
}

export function scheme(over: Partial<LoyaltyScheme> & Pick<LoyaltyScheme, 'id'>): LoyaltyScheme {
  return {
    version: 1,
    name: `Scheme ${over.id}`,
    earn: [],
    reward: null,
    validFromMs: null,
    validToMs: null,
    outletIds: null,
    pointsExpireAfterDays: null,
    ...over,
  };
}

export function run(
  campaigns: Campaign[],
  b: EngineBasket,
  opts: { schemes?: LoyaltyScheme[]; consumer?: ConsumerState | null; explain?: boolean } = {},
): EngineResult {
  return evaluateBasket(buildCampaignIndex(campaigns), opts.schemes ?? [], b, opts.consumer ?? null, {
    explain: opts.explain ?? false,
  });
}

/** [positionId, grossRewardMinor] of each reward, in output order. */
export function rewardsOf(r: EngineResult): [number, number][] {
  return r.rewards.map((x) => [x.positionId, x.grossRewardMinor]);
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}
