import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';

const basket = (positions: Record<string, unknown>[], extra: Record<string, unknown> = {}) => ({
  Timestamp: '2026-03-02T16:59:00-05:00',
  HasDiscounts: false,
  Positions: positions,
  ...extra,
});

interface DryRun {
  Rewards: {
    RewardType: number;
    GrossRewardValue: number;
    RewardTriggeringPositionId: number;
    CouponId: number;
    Name: string;
  }[];
  LoyaltyInfo: { LoyaltyId: number; Name: string; Details: Record<string, number>[] }[];
  explanations: {
    campaignId: number | string;
    name: string;
    applied: boolean;
    applications: number;
    reason: string;
    reasonCode: string;
    blockedBy?: (number | string)[];
    tiers?: string[];
    unitsNeeded?: number;
  }[];
  rulesVersion: number;
}

describe.each(databases)('dry run on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let url: string;
  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    url = `/merchants/${encodeURIComponent(term.serviceUserName)}/dryRun`;
  });
  afterAll(() => t?.close());

  const run = async (body: Record<string, unknown>) => {
    const res = await t.admin('POST', url, body);
    return {
      status: res.statusCode,
      body: res.json() as DryRun & { error?: { code: string; details?: { field?: string } } },
    };
  };

  it('dryRun.happy: a draft product campaign, 20 % on A, 3 x 2.45 gives 1.47 (worked example)', async () => {
    const { status, body } = await run({
      basket: basket([{ PositionId: 1, ProductId: 'A', Unit: 0, Amount: 3, CurrentGrossPrice: 2.45 }]),
      campaigns: [{ name: 'A 20 %', type: 'product', discount: { percent: 20 }, products: [{ plu: 'A' }] }],
    });
    expect(status).toBe(200);
    expect(body.Rewards).toEqual([
      {
        RewardType: 1,
        ProductId: 'A',
        GrossRewardValue: 1.47,
        RewardTriggeringPositionId: 1,
        CouponId: -1,
        Name: 'A 20 %',
      },
    ]);
    expect(body.explanations).toEqual([
      {
        campaignId: 'draft-1',
        name: 'A 20 %',
        applied: true,
        applications: 3,
        reason: 'applied',
        reasonCode: 'applied',
      },
    ]);
    expect(body.LoyaltyInfo).toEqual([]);
  });

  it('dryRun.happy: quantity buy 3 get 1 at 50 % on a group given through `groups` (worked example)', async () => {
    const g = (id: number, price: number) => ({
      PositionId: id,
      ProductId: `G${id}`,
      Unit: 0,
      Amount: 1,
      CurrentGrossPrice: price,
    });
    const { body } = await run({
      basket: basket([g(1, 2), g(2, 2), g(3, 1.5), g(4, 1.5), g(5, 1)]),
      groups: { G1: ['G'], G2: ['G'], G3: ['G'], G4: ['G'], G5: ['G'] },
      campaigns: [
        {
          name: '3+1',
          type: 'quantity',
          discount: { percent: 50 },
          products: [{ group: 'G' }],
          buy: 3,
          get: 1,
        },
      ],
    });
    expect(body.Rewards.map((r) => [r.RewardTriggeringPositionId, r.GrossRewardValue])).toEqual([[4, 0.75]]);
  });

  it('dryRun.happy: a draft scheme with committed points redeems its bill reward (worked example)', async () => {
    const { body } = await run({
      basket: basket([{ PositionId: 1, ProductId: 'X', Unit: 0, Amount: 1, CurrentGrossPrice: 12.4 }]),
      schemes: [
        {
          name: 'Points',
          earn: [{ per: 'amount', amount: 1, points: 1 }],
          reward: { threshold: 50, type: 'bill', discount: { amount: 5 } },
        },
      ],
      consumer: { points: { 'draft-1': 48 } },
    });
    expect(body.LoyaltyInfo).toEqual([
      {
        LoyaltyId: -1,
        Name: 'Points',
        Details: [
          {
            PreviousPoints: 48,
            NewPoints: 10,
            PointsInScheme: 50,
            GrossRewardValue: 5,
            RewardTriggeringPositionId: 0,
          },
        ],
      },
    ]);
    expect(body.Rewards).toEqual([
      {
        RewardType: 2,
        ProductId: '',
        GrossRewardValue: 5,
        RewardTriggeringPositionId: 0,
        CouponId: -1,
        Name: 'Points',
      },
    ]);
  });

  it('dryRun.happy: live campaigns take part unless includeLiveCampaigns is false; reasons explain misses', async () => {
    const created = await t.admin(
      'POST',
      `/merchants/${encodeURIComponent(term.serviceUserName)}/campaigns`,
      {
        name: 'Live B 1.00 off',
        type: 'product',
        discount: { amount: 1 },
        products: [{ plu: 'B' }],
      },
    );
    const liveId = (created.json() as { id: number }).id;
    const request = {
      basket: basket([
        { PositionId: 1, ProductId: 'B', Unit: 0, Amount: 1, CurrentGrossPrice: 3 },
        { PositionId: 2, ProductId: 'C', Unit: 0, Amount: 1, CurrentGrossPrice: 3 },
      ]),
      campaigns: [
        {
          name: 'Coupon C',
          type: 'product',
          discount: { percent: 10 },
          products: [{ plu: 'C' }],
          couponCode: 'SPRING',
        },
        { name: 'Nothing here', type: 'product', discount: { percent: 10 }, products: [{ plu: 'Z' }] },
        { name: 'Bill 10 %', type: 'bill', discount: { percent: 10 }, minTotal: 100 },
      ],
    };
    const withLive = await run(request);
    expect(withLive.status).toBe(200);
    expect(withLive.body.rulesVersion).toBeGreaterThan(0);
    expect(withLive.body.Rewards).toEqual([
      {
        RewardType: 1,
        ProductId: 'B',
        GrossRewardValue: 1,
        RewardTriggeringPositionId: 1,
        CouponId: liveId,
        Name: 'Live B 1.00 off',
      },
    ]);
    const reasons = Object.fromEntries(
      withLive.body.explanations.map((e) => [String(e.campaignId), e.reason]),
    );
    expect(reasons).toEqual({
      [String(liveId)]: 'applied',
      'draft-1': 'coupon code not presented',
      'draft-3': 'minimum total not reached',
      'draft-2': 'no article of the basket matches its products',
    });

    const withCoupon = await run({
      ...request,
      basket: { ...request.basket, ContextIdentifiers: ['SPRING'] },
      includeLiveCampaigns: false,
    });
    expect(withCoupon.body.rulesVersion).toBe(0);
    expect(withCoupon.body.Rewards.map((r) => [r.CouponId, r.GrossRewardValue])).toEqual([[-1, 0.3]]);
  });

  it('dryRun.happy: a campaign left without free units names the campaigns that took them (blockedBy); every reason has its code', async () => {
    const campaigns = `/merchants/${encodeURIComponent(term.serviceUserName)}/campaigns`;
    const live = await t.admin('POST', campaigns, {
      name: 'Espresso 20 %',
      type: 'product',
      discount: { percent: 20 },
      products: [{ plu: 'ESP' }],
    });
    expect(live.statusCode, live.body).toBe(201);
    const liveId = (live.json() as { id: number }).id;
    const breakfast = {
      name: 'Breakfast',
      type: 'combination',
      discount: { price: 4 },
      combination: [
        { plu: 'ESP', quantity: 1 },
        { plu: 'CRO', quantity: 1 },
      ],
    };
    const threeForTwo = {
      name: 'Three croissants for two',
      type: 'quantity',
      products: [{ plu: 'CRO' }],
      buy: 2,
      get: 1,
      discount: { percent: 100 },
    };
    const request = {
      basket: basket([
        { PositionId: 1, ProductId: 'ESP', Unit: 0, Amount: 1, CurrentGrossPrice: 2.5 },
        { PositionId: 2, ProductId: 'CRO', Unit: 0, Amount: 2, CurrentGrossPrice: 2 },
      ]),
      campaigns: [breakfast, threeForTwo],
    };
    // The live campaign comes first (same priority, lower id) and takes the espresso: the breakfast
    // has no free unit of one of its parts; two croissants are fewer than three.
    const first = await run(request);
    expect(first.status).toBe(200);
    const byId = (r: typeof first) =>
      Object.fromEntries(r.body.explanations.map((e) => [String(e.campaignId), e]));
    expect(byId(first)).toEqual({
      [String(liveId)]: expect.objectContaining({ applied: true, reasonCode: 'applied' }),
      'draft-1': expect.objectContaining({
        applied: false,
        reason: 'no qualifying units left',
        reasonCode: 'no_units_left',
        blockedBy: [liveId],
      }),
      'draft-2': expect.objectContaining({
        applied: false,
        reason: 'fewer than 3 qualifying units',
        reasonCode: 'too_few_units',
        unitsNeeded: 3,
      }),
    });
    expect(byId(first)['draft-2']).not.toHaveProperty('blockedBy');

    // Given a higher priority, the breakfast goes first and the live campaign is the one left out.
    const second = await run({ ...request, campaigns: [{ ...breakfast, priority: 10 }, threeForTwo] });
    expect(byId(second)).toMatchObject({
      'draft-1': { applied: true, reasonCode: 'applied' },
      [String(liveId)]: { applied: false, reasonCode: 'no_units_left', blockedBy: ['draft-1'] },
      // The breakfast took one croissant: the one left is fewer than three, taken in part by it.
      'draft-2': { applied: false, reasonCode: 'too_few_units', unitsNeeded: 3, blockedBy: ['draft-1'] },
    });
    // 2.50 + 2.00 for 4.00: the 0.50 split by the value each gave, 0.28 and 0.22.
    expect(second.body.Rewards.map((r) => [r.CouponId, r.GrossRewardValue])).toEqual([
      [-1, 0.28],
      [-1, 0.22],
    ]);
    await t.admin('DELETE', `${campaigns}/${liveId}`);
  });

  it('dryRun.error: an invalid draft, basket or outlet answers 400 naming the field; nothing is stored', async () => {
    const before = (
      (
        await t.admin('GET', `/merchants/${encodeURIComponent(term.serviceUserName)}/campaigns?limit=100`)
      ).json().data as unknown[]
    ).length;
    const bad = await run({
      basket: basket([]),
      campaigns: [{ name: 'x', type: 'product', discount: { percent: 150 }, products: [] }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.details?.field).toBe('campaigns[0].discount.percent');
    const badScheme = await run({ basket: basket([]), schemes: [{ name: 's', earn: [] }] });
    expect(badScheme.body.error?.details?.field).toBe('schemes[0].earn');
    const badBasket = await run({ basket: { Timestamp: 'yesterday', HasDiscounts: false } });
    expect(badBasket.status).toBe(400);
    const badOutlet = await run({ basket: basket([]), outletId: 987654321 });
    expect(badOutlet.status).toBe(400);
    expect(badOutlet.body.error?.details?.field).toBe('outletId');
    const badKey = await run({ basket: basket([]), consumer: { points: { coffee: 1 } } });
    expect(badKey.status).toBe(400);
    const noBasket = await run({});
    expect(noBasket.status).toBe(400);
    expect(
      (
        (
          await t.admin('GET', `/merchants/${encodeURIComponent(term.serviceUserName)}/campaigns?limit=100`)
        ).json().data as unknown[]
      ).length,
    ).toBe(before);
  });

  it('dryRun.security: unknown merchant 404, operator token required', async () => {
    expect((await t.admin('POST', '/merchants/nobody/dryRun', { basket: basket([]) })).statusCode).toBe(404);
    const res = await t.app.inject({
      method: 'POST',
      url: `/api/admin/v1${url}`,
      payload: { basket: basket([]) },
    });
    expect(res.statusCode).toBe(401);
  });
});
