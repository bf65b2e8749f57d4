import { MAX_POINTS_PER_BASKET } from '../engine/loyalty.rule.js';
import type {
  Campaign,
  Discount,
  EarnRule,
  LoyaltyScheme,
  ScheduleWindow,
  SchemeReward,
  Selector,
  Stacking,
} from '../engine/types.js';
import { type Decimal, decimalPlaces, decimalToMinor, parseDecimal, toSafeMinor } from '../shared/money.js';
import { parseInstant } from '../shared/time.js';
import type { CampaignBody, SchemeBody } from './rule.schemas.js';
import { uniqueCodeKey } from './campaign-codes.js';
import { fail } from './rule-definition-error.js';
import { tiersToEngine } from './tier.convert.js';
import { tierLimitToEngine } from './tier-limit.convert.js';

/**
 * The one place where an operator's campaign or loyalty scheme (docs/decisions.md, "Campaigns and schemes": major units,
 * percent, ISO times, "HH:MM") becomes an engine rule (minor units at the merchant currency's
 * exponent, basis points, epoch ms, minutes of the day). Exact decimal arithmetic only: an amount
 * with more decimals than the currency has, or a percent with more than two, is refused rather
 * than rounded. Every refusal names the field, so the operator API can answer 400 invalid_request
 * with a message that says what to fix.
 */

/**
 * A campaign as stored for the engine, without id and version. `uniqueCodes`: it applies when a
 * basket presents one of its unique codes; the engine knows it under the coupon code
 * `uniqueCodeKey(id)` (live-rules.store.ts, docs/decisions.md "Unique codes").
 */
export type EngineCampaignDefinition = Omit<Campaign, 'id' | 'version'> & { uniqueCodes?: true };

/** A stored campaign in the engine's form; one with unique codes is known by its code key. */
export function engineCampaign(stored: EngineCampaignDefinition, id: number, version: number): Campaign {
  const { uniqueCodes, ...definition } = stored;
  const couponCode = uniqueCodes === true ? uniqueCodeKey(id) : definition.couponCode;
  return { ...definition, couponCode, id, version };
}
export type EngineSchemeDefinition = Omit<LoyaltyScheme, 'id' | 'version'>;

export interface ConvertContext {
  /** Minor units per major unit of the merchant's currency (2 for EUR). */
  readonly exponent: number;
  /** The merchant's time zone, for validFrom/validTo without an offset. */
  readonly timeZone: string;
}

export { RuleDefinitionError } from './rule-definition-error.js';

function decimal(value: number, field: string): Decimal {
  const d = parseDecimal(value);
  if (d === null) fail(field, 'must be a finite decimal number.');
  return d;
}

/** A positive (or, with allowZero, non-negative) amount in major units to minor units, exactly. */
export function amountToMinor(value: number, field: string, exponent: number, allowZero: boolean): number {
  const d = decimal(value, field);
  if (d.units < 0n || (!allowZero && d.units === 0n)) {
    fail(field, allowZero ? 'must not be negative.' : 'must be greater than 0.');
  }
  if (decimalPlaces(d) > exponent) fail(field, `must have at most ${exponent} decimals.`);
  try {
    return toSafeMinor(decimalToMinor(d, exponent));
  } catch {
    return fail(field, 'is too large.');
  }
}

/** Percent (0, 100] with at most two decimals to basis points: 12.5 -> 1250. */
export function percentToBp(value: number, field: string): number {
  const d = decimal(value, field);
  if (d.units <= 0n) fail(field, 'must be greater than 0.');
  if (decimalPlaces(d) > 2) fail(field, 'must have at most two decimals.');
  const bp = Number(decimalToMinor(d, 2));
  if (bp > 10_000) fail(field, 'must be at most 100.');
  return bp;
}

export function convertDiscount(
  discount: { percent?: number | undefined; amount?: number | undefined; price?: number | undefined },
  field: string,
  exponent: number,
  allowed: readonly Discount['kind'][],
): Discount {
  const given = (['percent', 'amount', 'price'] as const).filter((k) => discount[k] !== undefined);
  if (given.length !== 1) {
    fail(
      field,
      `must give exactly one of ${allowed.join(', ')} (got ${given.length === 0 ? 'none' : given.join(', ')}).`,
    );
  }
  const kind = given[0] ?? 'percent';
  if (!allowed.includes(kind)) fail(`${field}.${kind}`, `is not allowed here; use ${allowed.join(' or ')}.`);
  const value = discount[kind] ?? 0;
  switch (kind) {
    case 'percent':
      return { kind, bp: percentToBp(value, `${field}.percent`) };
    case 'amount':
      return { kind, minor: amountToMinor(value, `${field}.amount`, exponent, false) };
    case 'price':
      return { kind, minor: amountToMinor(value, `${field}.price`, exponent, true) };
  }
}

function selectorOf(s: { plu?: string | undefined; group?: string | undefined }, field: string): Selector {
  const plu = s.plu?.trim();
  const group = s.group?.trim();
  if (plu !== undefined && plu !== '' && group !== undefined && group !== '') {
    fail(field, 'must name either plu or group, not both.');
  }
  if (plu !== undefined && plu !== '') return { plu };
  if (group !== undefined && group !== '') return { group };
  return fail(field, 'must name a plu or a group.');
}

function selectors(
  list: readonly { plu?: string | undefined; group?: string | undefined }[],
  field: string,
): Selector[] {
  return list.map((s, i) => selectorOf(s, `${field}[${i}]`));
}

const HH_MM = /^(\d{2}):(\d{2})$/;

/** "HH:MM" to minutes of the day; "24:00" only as an end. */
export function minuteOfDay(text: string, field: string, isEnd: boolean): number {
  const m = HH_MM.exec(text.trim());
  const hours = Number(m?.[1]);
  const minutes = Number(m?.[2]);
  if (!m || minutes > 59 || hours > 24 || (hours === 24 && (minutes !== 0 || !isEnd))) {
    fail(field, `must be a time of day HH:MM${isEnd ? ' (00:01 to 24:00)' : ' (00:00 to 23:59)'}.`);
  }
  return hours * 60 + minutes;
}

/**
 * Schedule windows: `from` strictly before `to` on the same day ("24:00" ends the day). The engine
 * reads a window whose end is not after its start as running past midnight; the API does not
 * accept such windows (a typo like 18:00-16:00 would otherwise silently mean 22 hours), so a
 * night window is written as two windows, e.g. Fri 22:00-24:00 and Sat 00:00-02:00.
 */
export function convertSchedule(
  schedule: readonly { days: readonly number[]; from: string; to: string }[],
  field: string,
): ScheduleWindow[] {
  return schedule.map((w, i) => {
    const at = `${field}[${i}]`;
    if (w.days.length === 0)
      fail(`${at}.days`, 'must name at least one ISO weekday (1 = Monday .. 7 = Sunday).');
    for (const [j, d] of w.days.entries()) {
      if (!Number.isInteger(d) || d < 1 || d > 7)
        fail(`${at}.days[${j}]`, 'must be an ISO weekday 1 (Monday) to 7 (Sunday).');
    }
    const fromMinute = minuteOfDay(w.from, `${at}.from`, false);
    const toMinute = minuteOfDay(w.to, `${at}.to`, true);
    if (fromMinute >= toMinute) {
      fail(
        `${at}`,
        `from ${w.from} must be before to ${w.to}; a window past midnight is two windows (… to 24:00, 00:00 to …).`,
      );
    }
    return { days: [...new Set(w.days)].sort((a, b) => a - b), fromMinute, toMinute };
  });
}

function instantMs(text: string | null | undefined, field: string, timeZone: string): number | null {
  if (text === undefined || text === null || text.trim() === '') return null;
  const instant = parseInstant(text, timeZone);
  if (instant === null) fail(field, 'must be an ISO 8601 date-time, e.g. 2026-03-01T00:00:00+01:00.');
  return instant.utcMs;
}

function validity(
  body: { validFrom?: string | null | undefined; validTo?: string | null | undefined },
  timeZone: string,
): { validFromMs: number | null; validToMs: number | null } {
  const validFromMs = instantMs(body.validFrom, 'validFrom', timeZone);
  const validToMs = instantMs(body.validTo, 'validTo', timeZone);
  if (validFromMs !== null && validToMs !== null && validFromMs >= validToMs) {
    fail('validTo', 'must be after validFrom.');
  }
  return { validFromMs, validToMs };
}

function outlets(ids: readonly number[] | null | undefined): number[] | null {
  if (ids === undefined || ids === null) return null;
  if (ids.length === 0)
    fail('outletIds', 'must name at least one outlet; omit it (or null) for every outlet.');
  return [...new Set(ids)].sort((a, b) => a - b);
}

function positiveInteger(
  value: number | null | undefined,
  field: string,
  max = Number.MAX_SAFE_INTEGER,
): number | null {
  if (value === undefined || value === null) return null;
  if (!Number.isSafeInteger(value) || value < 1) fail(field, 'must be a whole number of at least 1.');
  if (value > max) fail(field, `must be at most ${max.toLocaleString('en')}.`);
  return value;
}

function notFor(present: boolean, field: string, types: string): void {
  if (present) fail(field, `applies to ${types} only.`);
}

/** A product campaign's stacking (docs/decisions.md, "Stacking"); absent or null: today's rule. */
function convertStacking(body: CampaignBody): Stacking | null {
  const s = body.stacking;
  if (s === undefined || s === null) return null;
  if (body.type !== 'product') {
    fail('stacking', 'applies to product campaigns only; omit it (or null) for the others.');
  }
  const group = s.group?.trim() ?? '';
  if (s.mode === 'group') {
    if (group === '') fail('stacking.group', 'must name the group the campaign stacks in.');
    return { mode: 'group', group };
  }
  if (s.group !== undefined && s.group !== null) {
    fail('stacking.group', 'goes only with mode "group".');
  }
  return { mode: s.mode };
}

/** An operator campaign body to the engine's rule; throws RuleDefinitionError naming the field. */
export function campaignToEngine(body: CampaignBody, ctx: ConvertContext): EngineCampaignDefinition {
  const { type } = body;
  const name = body.name.trim();
  if (name === '') fail('name', 'must not be empty.');
  const discount = convertDiscount(
    body.discount,
    'discount',
    ctx.exponent,
    type === 'bill' ? ['percent', 'amount'] : ['percent', 'amount', 'price'],
  );

  let products: Selector[] = [];
  if (type === 'product' || type === 'quantity') {
    if (body.products === undefined) {
      fail('products', `is required for a ${type} campaign ([] means every article).`);
    }
    products = selectors(body.products, 'products');
  } else notFor(body.products !== undefined, 'products', 'product and quantity campaigns');

  let combination: Campaign['combination'] = [];
  if (type === 'combination') {
    if (body.combination === undefined || body.combination.length === 0) {
      fail('combination', 'must name at least one part, e.g. [{"plu": "1001", "quantity": 1}].');
    }
    combination = body.combination.map((part, i) => ({
      selector: selectorOf(part, `combination[${i}]`),
      quantity: positiveInteger(part.quantity ?? 1, `combination[${i}].quantity`) ?? 1,
    }));
  } else notFor(body.combination !== undefined, 'combination', 'combination campaigns');

  let buy = 0;
  let get = 0;
  if (type === 'quantity') {
    if (body.buy === undefined) fail('buy', 'is required for a quantity campaign.');
    if (body.get === undefined) fail('get', 'is required for a quantity campaign.');
    buy = positiveInteger(body.buy, 'buy') ?? 0;
    get = positiveInteger(body.get, 'get') ?? 0;
  } else {
    notFor(body.buy !== undefined, 'buy', 'quantity campaigns');
    notFor(body.get !== undefined, 'get', 'quantity campaigns');
  }

  let minTotalMinor = 0;
  if (type === 'bill') {
    if (body.minTotal !== undefined)
      minTotalMinor = amountToMinor(body.minTotal, 'minTotal', ctx.exponent, true);
  } else {
    notFor(body.minTotal !== undefined, 'minTotal', 'bill campaigns');
    notFor(body.exclusive === true, 'exclusive', 'bill campaigns');
  }

  let couponCode: string | null = null;
  if (body.couponCode !== undefined && body.couponCode !== null) {
    couponCode = body.couponCode.trim();
    if (couponCode === '') fail('couponCode', 'must not be empty; omit it (or null) for no code.');
  }
  const uniqueCodes = body.uniqueCodes === true;
  if (uniqueCodes && couponCode !== null) {
    fail('uniqueCodes', 'cannot go with a couponCode: a campaign takes one code for all or unique codes.');
  }

  const channels = body.channels === undefined ? [] : [...new Set(body.channels)].sort();
  if (body.channels !== undefined && channels.length === 0) {
    fail('channels', 'must name at least one of pos, checkout; omit it for both.');
  }

  const stacking = convertStacking(body);
  const tiers = tierLimitToEngine(body);
  const priority = body.priority ?? 0;
  if (!Number.isSafeInteger(priority) || Math.abs(priority) > 1_000_000) {
    fail('priority', 'must be a whole number between -1000000 and 1000000.');
  }

  return {
    name,
    type,
    discount,
    products,
    combination,
    buy,
    get,
    minTotalMinor,
    maxApplications: positiveInteger(body.maxApplications, 'maxApplications'),
    couponCode,
    requiresConsumer: body.requiresConsumer === true,
    ...validity(body, ctx.timeZone),
    schedule: convertSchedule(body.schedule ?? [], 'schedule'),
    outletIds: outlets(body.outletIds),
    channels: channels.length === 2 ? [] : channels,
    priority,
    exclusive: body.exclusive === true,
    usageLimitPerConsumer: positiveInteger(body.usageLimitPerConsumer, 'usageLimitPerConsumer'),
    ...(uniqueCodes ? { uniqueCodes: true as const } : {}),
    ...(stacking === null ? {} : { stacking }),
    ...(tiers === null ? {} : { tiers }),
  };
}

/** Points an earn rule gives per multiple or per unit, at most. */
const MAX_POINTS_PER_RULE = 1_000_000;

/** An operator loyalty-scheme body to the engine's scheme; throws RuleDefinitionError naming the field. */
export function schemeToEngine(body: SchemeBody, ctx: ConvertContext): EngineSchemeDefinition {
  const name = body.name.trim();
  if (name === '') fail('name', 'must not be empty.');
  if (body.earn.length === 0) fail('earn', 'must hold at least one earn rule.');
  const earn = body.earn.map((rule, i): EarnRule => {
    const at = `earn[${i}]`;
    const points = positiveInteger(rule.points, `${at}.points`, MAX_POINTS_PER_RULE) ?? 1;
    if (rule.per === 'amount') {
      notFor(rule.products !== undefined, `${at}.products`, 'earn rules per unit');
      if (rule.amount === undefined) fail(`${at}.amount`, 'is required for an earn rule per amount.');
      return {
        per: 'amount',
        amountMinor: amountToMinor(rule.amount, `${at}.amount`, ctx.exponent, false),
        points,
      };
    }
    notFor(rule.amount !== undefined, `${at}.amount`, 'earn rules per amount');
    if (rule.products === undefined)
      fail(`${at}.products`, 'is required for an earn rule per unit ([] means every article).');
    return { per: 'unit', products: selectors(rule.products, `${at}.products`), points };
  });

  let reward: SchemeReward | null = null;
  const r = body.reward;
  if (r !== undefined && r !== null) {
    // A threshold beyond what one basket can earn could still be reached over many baskets.
    const threshold = positiveInteger(r.threshold, 'reward.threshold', MAX_POINTS_PER_BASKET) ?? 1;
    if (r.type === 'product') {
      if (r.products === undefined)
        fail('reward.products', 'is required for a product reward ([] means every article).');
      reward = {
        threshold,
        type: 'product',
        products: selectors(r.products, 'reward.products'),
        discount: convertDiscount(r.discount, 'reward.discount', ctx.exponent, [
          'percent',
          'amount',
          'price',
        ]),
      };
    } else {
      notFor(r.products !== undefined, 'reward.products', 'product rewards');
      reward = {
        threshold,
        type: 'bill',
        discount: convertDiscount(r.discount, 'reward.discount', ctx.exponent, ['percent', 'amount']),
      };
    }
  }

  return {
    name,
    earn,
    reward,
    ...validity(body, ctx.timeZone),
    outletIds: outlets(body.outletIds),
    pointsExpireAfterDays: positiveInteger(body.pointsExpireAfterDays, 'pointsExpireAfterDays'),
    ...tiersToEngine(body, ctx.exponent),
  };
}
