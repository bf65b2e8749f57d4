import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildCampaignIndex } from '../../src/engine/campaign-index.js';
import { evaluateBasket } from '../../src/engine/evaluate.js';
import { RUNS, world } from './arbitraries.js';
import { basket, campaign, pos, rewardsOf, run } from './fixtures.js';
import { referenceEvaluate } from './reference-engine.js';
import type { Campaign, Stacking } from '../../src/engine/types.js';

/*
 * Stacking per campaign (docs/decisions.md, "Stacking"). Where campaigns stack, the expected
 * rewards follow Medusa's promotion computation (packages/modules/promotion/src/utils/compute-actions/
 * line-items.ts and packages/core/utils/src/totals/promotion/index.ts): each promotion in turn takes
 * its value of what is left of the item (subtotal minus the adjustments before it), never more than that.
 * Medusa's published code is run on these carts and on random ones outside the repository
 * (docs/performance.md, "Stacking against Medusa's promotion computation").
 */

const COFFEE = 'coffee';
const BREAD = 'bread';
const stack = (s: Stacking): { stacking: Stacking } => ({ stacking: s });
const tenPercentForEverything = (over: Partial<Campaign> = {}): Campaign =>
  campaign({ id: 1, type: 'product', discount: { kind: 'percent', bp: 1000 }, ...over });
const coffeeOff50 = (over: Partial<Campaign> = {}): Campaign =>
  campaign({
    id: 2,
    type: 'product',
    discount: { kind: 'amount', minor: 50 },
    products: [{ plu: COFFEE }],
    ...over,
  });

/** Conditions that every basket meets, so that campaigns meet on the same lines. */
const OPEN = {
  validFromMs: null,
  validToMs: null,
  schedule: [],
  couponCode: null,
  requiresConsumer: false,
  channels: [],
  outletIds: null,
  usageLimitPerConsumer: null,
} satisfies Partial<Campaign>;

const settingArb: fc.Arbitrary<Stacking | null | undefined> = fc.constantFrom(undefined, null, {
  mode: 'exclusive' as const,
});

describe("stacking: the default keeps today's rewards", () => {
  it('campaigns without stacking settings (or exclusive) give the rewards of the engine before stacking, indexed and plain', () => {
    const arb = world.chain((w) =>
      fc
        .tuple(...w.campaigns.map(() => settingArb), fc.constant(null))
        .map((settings) => ({ ...w, settings: settings.slice(0, w.campaigns.length) })),
    );
    fc.assert(
      fc.property(arb, (w) => {
        const withSettings = w.campaigns.map((c, i) => {
          const s = w.settings[i];
          return s === undefined ? c : { ...c, stacking: s };
        });
        const today = referenceEvaluate(w.campaigns, w.schemes, w.basket, w.consumer);
        const index = buildCampaignIndex(withSettings);
        for (const explain of [false, true]) {
          const r = evaluateBasket(index, w.schemes, w.basket, w.consumer, { explain });
          expect(r.rewards).toEqual(today.rewards);
          expect(r.loyalty).toEqual(today.loyalty);
          expect(r.couponUsages).toEqual(today.couponUsages);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('with stacking on, no position is discounted below zero and no reward exceeds the bill', () => {
    const modeArb: fc.Arbitrary<Stacking | null> = fc.constantFrom(
      null,
      { mode: 'exclusive' as const },
      { mode: 'stackable' as const },
      { mode: 'group' as const, group: 'g' },
      { mode: 'group' as const, group: 'h' },
    );
    const arb = world.chain((w) =>
      fc
        .tuple(...w.campaigns.map(() => modeArb), fc.constant(null))
        .map((modes) => w.campaigns.map((c, i) => ({ ...c, ...OPEN, stacking: modes[i] ?? null })))
        .map((campaigns) => ({ ...w, campaigns, basket: { ...w.basket, hasDiscounts: false } })),
    );
    fc.assert(
      fc.property(arb, (w) => {
        const r = evaluateBasket(buildCampaignIndex(w.campaigns), w.schemes, w.basket, w.consumer);
        const eligible = w.basket.hasDiscounts ? [] : w.basket.positions.filter((p) => !p.hasDiscounts);
        const bill = Math.max(
          0,
          eligible.reduce((s, p) => s + p.lineGrossMinor, 0),
        );
        const per = new Map<number, number>();
        let total = 0;
        for (const x of r.rewards) {
          expect(Number.isSafeInteger(x.grossRewardMinor) && x.grossRewardMinor > 0).toBe(true);
          total += x.grossRewardMinor;
          if (x.rewardType === 1) per.set(x.positionId, (per.get(x.positionId) ?? 0) + x.grossRewardMinor);
        }
        expect(total).toBeLessThanOrEqual(bill);
        for (const [positionId, sum] of per) {
          const p = eligible.find((q) => q.positionId === positionId);
          expect(sum).toBeLessThanOrEqual(Math.max(0, p?.lineGrossMinor ?? 0));
        }
      }),
      { numRuns: RUNS },
    );
  });
});

describe('stacking per campaign (as Medusa computes stacked promotions)', () => {
  const cart = basket([pos(1, COFFEE, 250), pos(2, BREAD, 400)]);

  it('without stacking settings a unit gets one product-level reward, by priority', () => {
    const r = run([tenPercentForEverything(), coffeeOff50()], cart);
    expect(rewardsOf(r)).toEqual([
      [1, 25],
      [2, 40],
    ]);
  });

  it('stackable with everything: 10 % on everything and coffee -0.50 both apply, percentage before amount', () => {
    // Medusa: 10 % of 2.50 = 0.25, then min(0.50, 2.50 - 0.25) = 0.50; bread 10 % of 4.00 = 0.40.
    const r = run(
      [
        tenPercentForEverything(stack({ mode: 'stackable' })),
        coffeeOff50({ id: 0, ...stack({ mode: 'stackable' }) }),
      ],
      cart,
    );
    expect(r.rewards.map((x) => [x.couponId, x.positionId, x.grossRewardMinor])).toEqual([
      [1, 1, 25],
      [1, 2, 40],
      [0, 1, 50],
    ]);
  });

  it('order of application: a higher priority goes first, the percentage is then taken of what is left', () => {
    // Medusa with the amount promotion first: 0.50 off 2.50, then 10 % of 2.00 = 0.20.
    const r = run(
      [
        tenPercentForEverything(stack({ mode: 'stackable' })),
        coffeeOff50({ priority: 5, ...stack({ mode: 'stackable' }) }),
      ],
      basket([pos(1, COFFEE, 250)]),
    );
    expect(r.rewards.map((x) => [x.couponId, x.grossRewardMinor])).toEqual([
      [2, 50],
      [1, 20],
    ]);
  });

  it('a unit is never discounted below zero: the last stacked reward takes what is left', () => {
    // Medusa: 10 % of 2.50 = 0.25, then min(3.00, 2.50 - 0.25) = 2.25.
    const r = run(
      [
        tenPercentForEverything(stack({ mode: 'stackable' })),
        coffeeOff50({ discount: { kind: 'amount', minor: 300 }, ...stack({ mode: 'stackable' }) }),
      ],
      basket([pos(1, COFFEE, 250, 2)]),
    );
    // 2 units: 10 % of 5.00 = 0.50, then 2 x 3.00 capped at 4.50
    expect(rewardsOf(r)).toEqual([
      [1, 50],
      [1, 450],
    ]);
  });

  it('exclusive: nothing else on the units it takes', () => {
    const r = run(
      [
        tenPercentForEverything(stack({ mode: 'stackable' })),
        coffeeOff50({ priority: 5, ...stack({ mode: 'exclusive' }) }),
      ],
      cart,
    );
    expect(r.rewards.map((x) => [x.couponId, x.positionId, x.grossRewardMinor])).toEqual([
      [2, 1, 50],
      [1, 2, 40],
    ]);
  });

  it("exclusive is the version's: a reward of a version without stacking settings takes stacked rewards, though another version of the campaign is exclusive", () => {
    // Version 1 (exclusive) runs until today; version 2, without stacking settings, from today on.
    const campaigns = [
      tenPercentForEverything(stack({ mode: 'stackable' })),
      coffeeOff50({ version: 1, ...stack({ mode: 'exclusive' }), validToMs: cart.timestamp.utcMs }),
      coffeeOff50({ version: 2, validFromMs: cart.timestamp.utcMs }),
    ];
    const rewards = (r: { rewards: ReturnType<typeof run>['rewards'] }) =>
      r.rewards.map((x) => [x.couponId, x.campaignVersion, x.positionId, x.grossRewardMinor]);
    const expected = [
      [2, 2, 1, 50],
      [1, 1, 1, 20],
      [1, 1, 2, 40],
    ];
    expect(rewards(run(campaigns, cart))).toEqual(expected);
    expect(rewards(referenceEvaluate(campaigns, [], cart, null))).toEqual(expected);
  });

  it('stackable with everything adds to a unit that has a reward without stacking settings', () => {
    const r = run([tenPercentForEverything(stack({ mode: 'stackable' })), coffeeOff50()], cart);
    expect(r.rewards.map((x) => [x.couponId, x.positionId, x.grossRewardMinor])).toEqual([
      [2, 1, 50],
      [1, 1, 20],
      [1, 2, 40],
    ]);
  });

  it('stackable within a group: campaigns of the group combine, another group and unset campaigns do not', () => {
    const groupA = (id: number, bp: number): Campaign =>
      campaign({
        id,
        type: 'product',
        discount: { kind: 'percent', bp },
        ...stack({ mode: 'group', group: 'A' }),
      });
    const groupB = campaign({
      id: 9,
      type: 'product',
      discount: { kind: 'amount', minor: 10 },
      ...stack({ mode: 'group', group: 'B' }),
    });
    const single = coffeeOff50({ id: 8 });
    // coffee: the unset campaign takes it, so no group adds to it; bread: 10 % of 4.00, 50 % of 3.60; B stays out
    const r = run([groupA(1, 1000), groupA(2, 5000), groupB, single], cart);
    expect(r.rewards.map((x) => [x.couponId, x.positionId, x.grossRewardMinor])).toEqual([
      [8, 1, 50],
      [1, 2, 40],
      [2, 2, 180],
    ]);
  });
});

describe('stacking: why a stacked campaign did not apply (dry run, blockedBy)', () => {
  const cart = basket([pos(1, COFFEE, 250), pos(2, BREAD, 400)]);
  const why = (r: ReturnType<typeof run>, id: number) =>
    r.explanations.find((e) => e.campaignId === id && !e.applied);

  it('one that stacks with all, kept off the coffee by an exclusive campaign, names it and not the campaign without a setting it adds to', () => {
    const coffeeOnly = (id: number, over: Partial<Campaign>): Campaign =>
      coffeeOff50({ id, discount: { kind: 'amount', minor: 20 }, ...over });
    // Two cups: the exclusive campaign takes one (maxApplications 1), the unset one the other.
    const cups = basket([pos(1, COFFEE, 250, 2)]);
    const exclusive = coffeeOnly(3, { priority: 5, maxApplications: 1, ...stack({ mode: 'exclusive' }) });
    const unset = coffeeOnly(4, {});
    const addOn = coffeeOff50({ id: 5, ...stack({ mode: 'stackable' }) });
    const r = run([exclusive, unset, addOn], cups, { explain: true });
    expect(r.rewards.map((x) => x.couponId)).toEqual([3, 4]);
    expect(why(r, 5)).toMatchObject({ reason: 'no qualifying units left', blockedBy: [3] });
  });

  it("a group's campaign names every reward on its articles' lines: the unset campaign and the one that stacks with all on it", () => {
    const single = coffeeOff50({ id: 1 });
    const all = coffeeOff50({ id: 2, ...stack({ mode: 'stackable' }) });
    const grouped = coffeeOff50({ id: 3, ...stack({ mode: 'group', group: 'A' }) });
    const r = run([single, all, grouped], cart, { explain: true });
    expect(r.rewards.map((x) => x.couponId)).toEqual([1, 2]);
    expect(why(r, 3)).toMatchObject({ reason: 'no qualifying units left', blockedBy: [1, 2] });
  });

  it("another group's campaign on the line is named; a line used up by campaigns it stacks with names none", () => {
    const groupB = coffeeOff50({ id: 1, priority: 5, ...stack({ mode: 'group', group: 'B' }) });
    const groupA = coffeeOff50({ id: 2, ...stack({ mode: 'group', group: 'A' }) });
    const blocked = run([groupB, groupA], cart, { explain: true });
    expect(why(blocked, 2)).toMatchObject({ reason: 'no qualifying units left', blockedBy: [1] });

    // All of the coffee taken by a campaign of its own group: nothing stood in its way but the price.
    const everything = coffeeOff50({
      id: 1,
      priority: 5,
      discount: { kind: 'percent', bp: 10000 },
      ...stack({ mode: 'group', group: 'A' }),
    });
    const usedUp = run([everything, groupA], cart, { explain: true });
    expect(usedUp.rewards.map((x) => [x.couponId, x.grossRewardMinor])).toEqual([[1, 250]]);
    expect(why(usedUp, 2)).toMatchObject({ reason: 'no qualifying units left' });
    expect(why(usedUp, 2)).not.toHaveProperty('blockedBy');
  });
});
