import { describe, expect, it } from 'vitest';
import { at, basket, campaign, consumer, pos, run } from './fixtures.js';
import type {
  Campaign,
  ConsumerState,
  EngineBasket,
  EnginePosition,
  ScheduleWindow,
} from '../../src/engine/types.js';

const T = at('2026-03-02T12:00:00+00:00'); // Monday noon UTC
const productOnA = (over: Partial<Campaign> = {}): Campaign =>
  campaign({
    id: 1,
    type: 'product',
    discount: { kind: 'amount', minor: 10 },
    products: [{ plu: 'A' }],
    ...over,
  });
const window = (days: number[], from: string, to: string): ScheduleWindow => {
  const minutes = (hhmm: string): number => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
  return { days, fromMinute: minutes(from), toMinute: minutes(to) };
};

describe('campaign conditions', () => {
  it.each<{
    rule: string;
    c: Partial<Campaign>;
    b?: Partial<EngineBasket>;
    p?: Partial<EnginePosition>;
    who?: ConsumerState | null;
    applications: number;
    reason?: string;
  }>([
    { rule: 'validFrom is inclusive', c: { validFromMs: T.utcMs }, applications: 2 },
    {
      rule: 'before validFrom it does not apply',
      c: { validFromMs: T.utcMs + 1 },
      applications: 0,
      reason: 'not valid yet',
    },
    { rule: 'validTo is exclusive', c: { validToMs: T.utcMs }, applications: 0, reason: 'expired' },
    { rule: 'before validTo it applies', c: { validToMs: T.utcMs + 1 }, applications: 2 },
    {
      rule: 'validity is judged at the basket Timestamp, not at the OrderTime',
      c: { validToMs: T.utcMs },
      p: { orderTime: at('2026-03-01T12:00:00+00:00') },
      applications: 0,
      reason: 'expired',
    },
    {
      rule: 'outletIds null means every outlet',
      c: { outletIds: null },
      b: { outletId: 99 },
      applications: 2,
    },
    {
      rule: 'the basket outlet must be listed',
      c: { outletIds: [2, 3] },
      applications: 0,
      reason: 'outlet not included',
    },
    { rule: 'a listed outlet applies', c: { outletIds: [1, 3] }, applications: 2 },
    {
      rule: 'a basket without outlet misses an outlet list',
      c: { outletIds: [1] },
      b: { outletId: null },
      applications: 0,
      reason: 'outlet not included',
    },
    { rule: 'channels empty means both', c: { channels: [] }, b: { channel: 'checkout' }, applications: 2 },
    {
      rule: 'the basket channel must be listed',
      c: { channels: ['checkout'] },
      applications: 0,
      reason: 'channel not included',
    },
    {
      rule: 'a coupon campaign needs its code among the ContextIdentifiers',
      c: { couponCode: 'SUMMER' },
      applications: 0,
      reason: 'coupon code not presented',
    },
    {
      rule: 'the coupon code matches exactly',
      c: { couponCode: 'SUMMER' },
      b: { couponCodes: ['X', 'SUMMER'] },
      applications: 2,
    },
    {
      rule: 'the coupon code is case-sensitive',
      c: { couponCode: 'SUMMER' },
      b: { couponCodes: ['summer'] },
      applications: 0,
      reason: 'coupon code not presented',
    },
    {
      rule: 'requiresConsumer needs an identified consumer',
      c: { requiresConsumer: true },
      applications: 0,
      reason: 'consumer required',
    },
    {
      rule: 'requiresConsumer with a consumer applies',
      c: { requiresConsumer: true },
      b: { consumerKnown: true },
      applications: 2,
    },
    {
      rule: 'usageLimitPerConsumer without a consumer does not apply',
      c: { usageLimitPerConsumer: 5 },
      applications: 0,
      reason: 'usage limit needs an identified consumer',
    },
    {
      rule: 'usageLimitPerConsumer limits the applications to what is left of it',
      c: { usageLimitPerConsumer: 3 },
      b: { consumerKnown: true },
      who: consumer({ 1: 2 }),
      applications: 1,
    },
    {
      rule: 'usageLimitPerConsumer reached does not apply',
      c: { usageLimitPerConsumer: 3 },
      b: { consumerKnown: true },
      who: consumer({ 1: 3 }),
      applications: 0,
      reason: 'usage limit reached',
    },
    {
      rule: 'maxApplications 0 never applies',
      c: { maxApplications: 0 },
      applications: 0,
      reason: 'max applications is 0',
    },
    {
      rule: 'a basket with HasDiscounts gets no campaign reward',
      c: {},
      b: { hasDiscounts: true },
      applications: 0,
    },
    { rule: 'an empty schedule is always open', c: { schedule: [] }, applications: 2 },
    {
      rule: 'a schedule window is [from, to): from is inside',
      c: { schedule: [window([1], '12:00', '13:00')] },
      applications: 2,
    },
    {
      rule: 'a schedule window is [from, to): to is outside',
      c: { schedule: [window([1], '11:00', '12:00')] },
      applications: 0,
      reason: 'no qualifying units left',
    },
    {
      rule: 'a schedule only opens on its ISO weekdays (1 = Monday)',
      c: { schedule: [window([2, 3, 4, 5, 6, 7], '00:00', '23:59')] },
      applications: 0,
    },
    {
      rule: 'the schedule uses the wall clock in the offset of the Timestamp',
      c: { schedule: [window([1], '07:00', '08:00')] },
      b: { timestamp: at('2026-03-02T07:30:00-05:00') },
      applications: 2,
    },
    {
      rule: 'the wall-clock day follows the offset (Sunday 23:30 at -05:00 is Monday 04:30 UTC)',
      c: { schedule: [window([7], '23:00', '23:59')] },
      b: { timestamp: at('2026-03-01T23:30:00-05:00') },
      applications: 2,
    },
    {
      rule: 'the position OrderTime decides the schedule over the basket Timestamp',
      c: { schedule: [window([1], '15:00', '17:00')] },
      p: { orderTime: at('2026-03-02T16:59:00-05:00') },
      b: { timestamp: at('2026-03-02T17:00:00-05:00') },
      applications: 2,
    },
    {
      rule: 'a window past midnight belongs to the day it starts (Monday 22:00-02:00 covers Tuesday 01:00)',
      c: { schedule: [window([1], '22:00', '02:00')] },
      b: { timestamp: at('2026-03-03T01:00:00+01:00') },
      applications: 2,
    },
    {
      rule: 'a window past midnight does not open on the next day evening',
      c: { schedule: [window([1], '22:00', '02:00')] },
      b: { timestamp: at('2026-03-03T23:00:00+01:00') },
      applications: 0,
    },
    {
      rule: 'a window with from equal to to is the whole day',
      c: { schedule: [window([1], '00:00', '00:00')] },
      applications: 2,
    },
  ])('$rule', ({ c, b, p, who, applications, reason }) => {
    const r = run([productOnA(c)], basket([pos(1, 'A', 100, 2, p)], { timestamp: T, ...b }), {
      consumer: who ?? null,
      explain: true,
    });
    expect(r.couponUsages).toEqual(applications > 0 ? [{ campaignId: 1, count: applications }] : []);
    expect(r.rewards.reduce((s, x) => s + x.grossRewardMinor, 0)).toBe(applications * 10);
    if (reason !== undefined) expect(r.explanations[0]?.reason).toBe(reason);
  });

  it('without explain only the applied campaigns are explained; with explain every considered one', () => {
    const cs = [
      productOnA({ id: 1 }),
      productOnA({ id: 2, couponCode: 'X' }),
      productOnA({ id: 3, products: [{ plu: 'Z' }] }),
    ];
    const b = basket([pos(1, 'A', 100)]);
    expect(run(cs, b).explanations).toEqual([
      { campaignId: 1, applied: true, applications: 1, reason: 'applied' },
    ]);
    expect(run(cs, b, { explain: true }).explanations).toEqual([
      { campaignId: 1, applied: true, applications: 1, reason: 'applied' },
      { campaignId: 2, applied: false, applications: 0, reason: 'coupon code not presented' },
    ]);
  });
});
