import { describe, expect, it } from 'vitest';
import {
  RuleDefinitionError,
  amountToMinor,
  campaignToEngine,
  convertSchedule,
  percentToBp,
  schemeToEngine,
} from '../../src/campaigns/rule.convert.js';
import type { CampaignBody } from '../../src/campaigns/rule.schemas.js';
import { inSchedule, wallClock } from '../../src/engine/schedule.js';

const EUR = { exponent: 2, timeZone: 'Europe/Berlin' };

function refusal(fn: () => unknown): { field: string; problem: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof RuleDefinitionError) return { field: err.field, problem: err.problem };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('conversion of operator amounts and percentages', () => {
  it.each([
    [2.5, 2, 250],
    [0.1, 2, 10],
    [2.45, 2, 245],
    [1.005, 3, 1005],
    [100, 0, 100],
    [19.99, 2, 1999],
  ])('amount %s at exponent %s is exactly %s minor units', (major, exponent, minor) => {
    expect(amountToMinor(major, 'amount', exponent, false)).toBe(minor);
  });

  it('an amount with more decimals than the currency is refused, not rounded', () => {
    expect(refusal(() => amountToMinor(1.005, 'discount.amount', 2, false))).toEqual({
      field: 'discount.amount',
      problem: 'must have at most 2 decimals.',
    });
    expect(refusal(() => amountToMinor(1.5, 'x', 0, false)).problem).toBe('must have at most 0 decimals.');
  });

  it('zero is refused for amounts off and accepted for prices and minimum totals', () => {
    expect(refusal(() => amountToMinor(0, 'a', 2, false)).problem).toBe('must be greater than 0.');
    expect(amountToMinor(0, 'price', 2, true)).toBe(0);
    expect(refusal(() => amountToMinor(-0.01, 'price', 2, true)).problem).toBe('must not be negative.');
  });

  it.each([
    [10, 1000],
    [12.5, 1250],
    [0.01, 1],
    [33.33, 3333],
    [100, 10000],
  ])('percent %s is %s basis points', (percent, bp) => {
    expect(percentToBp(percent, 'p')).toBe(bp);
  });

  it.each([[0], [-5], [100.01], [12.345]])('percent %s is refused', (percent) => {
    expect(() => percentToBp(percent, 'p')).toThrow(RuleDefinitionError);
  });
});

describe('conversion of schedules', () => {
  it('HH:MM to minutes, "24:00" ends the day, days deduplicated and sorted', () => {
    expect(convertSchedule([{ days: [5, 1, 5], from: '16:00', to: '24:00' }], 'schedule')).toEqual([
      { days: [1, 5], fromMinute: 960, toMinute: 1440 },
    ]);
  });

  it('a window whose from is not before its to is refused (the API never makes a past-midnight window)', () => {
    expect(
      refusal(() => convertSchedule([{ days: [1], from: '22:00', to: '02:00' }], 'schedule')).field,
    ).toBe('schedule[0]');
    expect(
      refusal(() => convertSchedule([{ days: [1], from: '00:00', to: '00:00' }], 'schedule')).field,
    ).toBe('schedule[0]');
    expect(
      refusal(() => convertSchedule([{ days: [1], from: '24:00', to: '24:00' }], 'schedule')).field,
    ).toBe('schedule[0].from');
  });

  it('the engine reads what the API makes the way the API describes it: 22:00-24:00 includes 23:59, not 00:00', () => {
    const [w] = convertSchedule([{ days: [5], from: '22:00', to: '24:00' }], 'schedule');
    if (w === undefined) throw new Error('no window');
    const friday2359 = wallClock({ utcMs: Date.UTC(2026, 2, 6, 23, 59), offsetMinutes: 0 });
    const saturday0000 = wallClock({ utcMs: Date.UTC(2026, 2, 7, 0, 0), offsetMinutes: 0 });
    expect(inSchedule([w], friday2359)).toBe(true);
    expect(inSchedule([w], saturday0000)).toBe(false);
  });
});

describe('campaignToEngine', () => {
  const body = (extra: Partial<CampaignBody> = {}): CampaignBody => ({
    name: ' Happy hour beer ',
    type: 'product',
    discount: { percent: 10 },
    products: [{ plu: '1001' }, { group: 'BEER' }],
    ...extra,
  });

  it('converts a full product campaign to minor units, basis points and epoch ms', () => {
    expect(
      campaignToEngine(
        body({
          couponCode: ' SUMMER ',
          validFrom: '2026-03-01T00:00:00',
          validTo: '2026-04-01T00:00:00+02:00',
          schedule: [{ days: [1, 2, 3, 4, 5], from: '16:00', to: '18:00' }],
          outletIds: [2, 1, 2],
          channels: ['pos', 'checkout'],
          priority: 3,
          maxApplications: 4,
          usageLimitPerConsumer: 2,
          requiresConsumer: true,
        }),
        EUR,
      ),
    ).toEqual({
      name: 'Happy hour beer',
      type: 'product',
      discount: { kind: 'percent', bp: 1000 },
      products: [{ plu: '1001' }, { group: 'BEER' }],
      combination: [],
      buy: 0,
      get: 0,
      minTotalMinor: 0,
      maxApplications: 4,
      couponCode: 'SUMMER',
      requiresConsumer: true,
      // Without an offset: the merchant's zone (Berlin, +01:00 on 1 March).
      validFromMs: Date.UTC(2026, 1, 28, 23, 0),
      validToMs: Date.UTC(2026, 2, 31, 22, 0),
      schedule: [{ days: [1, 2, 3, 4, 5], fromMinute: 960, toMinute: 1080 }],
      outletIds: [1, 2],
      channels: [],
      priority: 3,
      exclusive: false,
      usageLimitPerConsumer: 2,
    });
  });

  it('bill: minTotal in minor units, percent or amount, exclusive', () => {
    const c = campaignToEngine(
      { name: 'Bill', type: 'bill', discount: { amount: 5 }, minTotal: 30, exclusive: true },
      EUR,
    );
    expect(c).toMatchObject({
      minTotalMinor: 3000,
      discount: { kind: 'amount', minor: 500 },
      exclusive: true,
    });
  });

  it('quantity: buy and get; combination: quantity defaults to 1; price 0 is allowed', () => {
    expect(
      campaignToEngine(
        { name: 'Q', type: 'quantity', discount: { percent: 100 }, products: [], buy: 2, get: 1 },
        EUR,
      ),
    ).toMatchObject({ buy: 2, get: 1, products: [] });
    expect(
      campaignToEngine(
        {
          name: 'C',
          type: 'combination',
          discount: { price: 0 },
          combination: [{ plu: 'A' }, { group: 'B', quantity: 2 }],
        },
        EUR,
      ).combination,
    ).toEqual([
      { selector: { plu: 'A' }, quantity: 1 },
      { selector: { group: 'B' }, quantity: 2 },
    ]);
  });

  it('JPY (exponent 0) amounts are whole yen', () => {
    expect(
      campaignToEngine(body({ discount: { amount: 150 } }), { exponent: 0, timeZone: 'Asia/Tokyo' }).discount,
    ).toEqual({
      kind: 'amount',
      minor: 150,
    });
  });

  it.each<[string, Partial<CampaignBody>, string]>([
    ['price on a bill', { type: 'bill', products: undefined, discount: { price: 1 } }, 'discount.price'],
    ['combination without parts', { type: 'combination', products: undefined }, 'combination'],
    [
      'part quantity 0',
      { type: 'combination', products: undefined, combination: [{ plu: 'A', quantity: 0 }] },
      'combination[0].quantity',
    ],
    ['buy 0', { type: 'quantity', buy: 0, get: 1 }, 'buy'],
    ['empty name', { name: '   ' }, 'name'],
    ['priority out of range', { priority: 10_000_000 }, 'priority'],
  ])('refuses %s naming %s', (_what, patch, field) => {
    expect(refusal(() => campaignToEngine(body(patch), EUR)).field).toBe(field);
  });
});

describe('schemeToEngine', () => {
  it('converts earn rules and rewards', () => {
    expect(
      schemeToEngine(
        {
          name: 'Points',
          earn: [{ per: 'amount', amount: 2.5, points: 3 }],
          reward: { threshold: 50, type: 'bill', discount: { amount: 5 } },
          outletIds: null,
        },
        EUR,
      ),
    ).toEqual({
      name: 'Points',
      earn: [{ per: 'amount', amountMinor: 250, points: 3 }],
      reward: { threshold: 50, type: 'bill', discount: { kind: 'amount', minor: 500 } },
      validFromMs: null,
      validToMs: null,
      outletIds: null,
      pointsExpireAfterDays: null,
    });
  });

  it('a scheme without a reward only earns', () => {
    expect(
      schemeToEngine({ name: 'S', earn: [{ per: 'unit', products: [], points: 1 }] }, EUR).reward,
    ).toBeNull();
  });
});
