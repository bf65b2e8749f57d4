import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';

interface BasketAnswer {
  Rewards: {
    RewardType: number;
    ProductId: string;
    GrossRewardValue: number;
    RewardTriggeringPositionId: number;
    CouponId: number;
    Name: string;
  }[];
  LoyaltyInfo: {
    LoyaltyId: number;
    Name: string;
    Details: {
      PreviousPoints: number;
      NewPoints: number;
      PointsInScheme: number;
      GrossRewardValue: number;
      RewardTriggeringPositionId: number;
    }[];
  }[];
  Balances?: unknown[];
}

const TS = '2026-03-02T12:30:00+01:00';

function basket(
  positions: { id: number; plu: string; amount: number; price: number }[],
  extra: Record<string, unknown> = {},
) {
  return {
    Timestamp: TS,
    HasDiscounts: false,
    Positions: positions.map((p) => ({
      PositionId: p.id,
      ProductId: p.plu,
      Unit: 0,
      Amount: p.amount,
      CurrentGrossPrice: p.price,
    })),
    ...extra,
  };
}

describe.each(databases)('rewards and loyalty through baskets on %s', (kind) => {
  let t: TestApp;
  let n = 0;
  const id = () => `RB-${++n}`;
  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(() => t?.close());

  async function merchantWith(
    campaigns: object[],
    schemes: object[] = [],
  ): Promise<{ term: Terminal; ids: number[]; schemeIds: number[] }> {
    const term = await setupTerminal(t);
    const ids: number[] = [];
    for (const c of campaigns) {
      const res = await t.admin('POST', `/merchants/${term.serviceUserName}/campaigns`, c);
      expect(res.statusCode, res.body).toBe(201);
      ids.push((res.json() as { id: number }).id);
    }
    const schemeIds: number[] = [];
    for (const s of schemes) {
      const res = await t.admin('POST', `/merchants/${term.serviceUserName}/loyaltySchemes`, s);
      expect(res.statusCode, res.body).toBe(201);
      schemeIds.push((res.json() as { id: number }).id);
    }
    return { term, ids, schemeIds };
  }

  async function customerCard(term: Terminal, tokenId: string): Promise<number> {
    const p = await t.admin('POST', `/merchants/${term.serviceUserName}/profiles`, {
      fullName: 'Ada',
      email: 'ada@example.org',
    });
    expect(p.statusCode, p.body).toBe(201);
    const profileId = (p.json() as { id: number }).id;
    const link = await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId, tokenType: 0 });
    expect(link.statusCode, link.body).toBe(200);
    return profileId;
  }

  const upload = async (
    term: Terminal,
    basketId: string,
    body: object,
    query: Record<string, string> = {},
  ) => {
    const res = await term.pos('POST', `/baskets/${basketId}`, { body, query });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as BasketAnswer;
  };
  const grant = async (term: Terminal, basketId: string, redeemedInPos = true) => {
    const res = await term.pos('POST', `/baskets/${basketId}/grant`, {
      sign: basketId,
      query: { redeemedInPos: String(redeemedInPos) },
    });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as BasketAnswer & { Granted: boolean };
  };

  it('product 20% on PLU A: A 3 x 2.45 earns one reward of 1.47 on its position', async () => {
    const { term, ids } = await merchantWith([
      { name: 'A twenty', type: 'product', discount: { percent: 20 }, products: [{ plu: 'A' }] },
    ]);
    const answer = await upload(term, id(), basket([{ id: 7, plu: 'A', amount: 3, price: 2.45 }]));
    expect(answer.Rewards).toEqual([
      {
        RewardType: 1,
        ProductId: 'A',
        GrossRewardValue: 1.47,
        RewardTriggeringPositionId: 7,
        CouponId: ids[0],
        Name: 'A twenty',
      },
    ]);
  });

  it("a campaign on a group rewards the articles of that group and its sub-groups, as the terminal's sortiment files them", async () => {
    const { term } = await merchantWith([
      { name: 'Drinks 10%', type: 'product', discount: { percent: 10 }, products: [{ group: 'DRINKS' }] },
    ]);
    const lookup = await term.pos('GET', '/sortiments', { query: { thirdPartySortimentIdentifier: 'ERP' } });
    const sid = (lookup.json() as { serviceSortimentId: string }).serviceSortimentId;
    for (const [path, body] of [
      ['/group/DRINKS', { Id: 'DRINKS' }],
      ['/group/BEER', { Id: 'BEER', UpGroupId: 'DRINKS' }],
      ['/group/FOOD', { Id: 'FOOD' }],
      ['/article/5001', { PLU: '5001', Name: [{ lang: 'de', val: 'Bier' }], GroupId: 'BEER' }],
      ['/article/6001', { PLU: '6001', Name: [{ lang: 'de', val: 'Brot' }], GroupId: 'FOOD' }],
    ] as const) {
      const res = await term.pos('POST', `/sortiments/${sid}${path}`, { body });
      expect(res.statusCode, res.body).toBeLessThan(300);
    }
    const upload = () =>
      term.pos('POST', `/baskets/${id()}`, {
        body: basket([
          { id: 1, plu: '5001', amount: 1, price: 4 },
          { id: 2, plu: '6001', amount: 1, price: 3 },
        ]),
      });
    // Without a sortiment the terminal knows no groups.
    expect(((await upload()).json() as BasketAnswer).Rewards).toEqual([]);
    const reassign = await term.pos('POST', '/trackingUnits', {
      query: {
        serviceUserName: term.serviceUserName,
        outletId: String(term.outletId),
        instanceName: 'Till 1',
        sortimentId: sid,
      },
    });
    expect(reassign.statusCode, reassign.body).toBe(200);
    const rewards = ((await upload()).json() as BasketAnswer).Rewards;
    expect(rewards.map((r) => [r.RewardTriggeringPositionId, r.GrossRewardValue])).toEqual([[1, 0.4]]);
  });

  it('the same rewards come back in XML, with Reward elements', async () => {
    const { term } = await merchantWith([
      { name: 'A twenty', type: 'product', discount: { percent: 20 }, products: [{ plu: 'A' }] },
    ]);
    const res = await term.pos('POST', `/baskets/${id()}`, {
      format: 'xml',
      body: `<Basket><Timestamp>${TS}</Timestamp><HasDiscounts>false</HasDiscounts><Positions><Position><PositionId>1</PositionId><ProductId>A</ProductId><Unit>0</Unit><Amount>3</Amount><CurrentGrossPrice>2.45</CurrentGrossPrice></Position></Positions></Basket>`,
    });
    expect(res.body).toContain(
      '<Rewards><Reward><RewardType>1</RewardType><ProductId>A</ProductId><GrossRewardValue>1.47</GrossRewardValue>',
    );
  });

  it('a coupon campaign applies only when ContextIdentifiers holds its code', async () => {
    const { term } = await merchantWith([
      { name: 'Summer', type: 'bill', discount: { amount: 1 }, couponCode: 'SUMMER' },
    ]);
    const without = await upload(term, id(), basket([{ id: 1, plu: 'X', amount: 1, price: 10 }]));
    expect(without.Rewards).toEqual([]);
    const withCode = await upload(
      term,
      id(),
      basket([{ id: 1, plu: 'X', amount: 1, price: 10 }], { ContextIdentifiers: ['SUMMER'] }),
    );
    expect(withCode.Rewards).toMatchObject([
      { RewardType: 2, ProductId: '', GrossRewardValue: 1, RewardTriggeringPositionId: 0 },
    ]);
  });

  it('basket HasDiscounts: no rewards are computed', async () => {
    const { term } = await merchantWith([{ name: 'All', type: 'bill', discount: { percent: 10 } }]);
    const answer = await upload(
      term,
      id(),
      basket([{ id: 1, plu: 'X', amount: 1, price: 10 }], { HasDiscounts: true }),
    );
    expect(answer.Rewards).toEqual([]);
  });

  it('loyalty: committed 48, basket 12.40 earns 12, 5.00 redeemed; Previous 48, New 10, InScheme 50, position 0', async () => {
    const { term, schemeIds } = await merchantWith(
      [],
      [
        {
          name: 'Coffee card',
          earn: [{ per: 'amount', amount: 1, points: 1 }],
          reward: { threshold: 50, type: 'bill', discount: { amount: 5 } },
        },
      ],
    );
    await customerCard(term, 'CARD-1');
    const first = id();
    const a1 = await upload(term, first, basket([{ id: 1, plu: 'X', amount: 1, price: 48 }]), {
      consumerIdentToken: 'CARD-1',
    });
    expect(a1.LoyaltyInfo[0]?.Details[0]).toEqual({
      PreviousPoints: 0,
      NewPoints: 48,
      PointsInScheme: 50,
      GrossRewardValue: 0,
      RewardTriggeringPositionId: 0,
    });

    // Points are provisional until the grant: another basket still starts from 0 committed points.
    const second = id();
    const early = await upload(term, second, basket([{ id: 1, plu: 'X', amount: 1, price: 12.4 }]), {
      consumerIdentToken: 'CARD-1',
    });
    expect(early.LoyaltyInfo[0]?.Details[0]?.PreviousPoints).toBe(0);

    await grant(term, first);
    const answer = await upload(term, second, basket([{ id: 1, plu: 'X', amount: 1, price: 12.4 }]), {
      consumerIdentToken: 'CARD-1',
    });
    expect(answer.LoyaltyInfo).toEqual([
      {
        LoyaltyId: schemeIds[0],
        Name: 'Coffee card',
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
    expect(answer.Rewards).toEqual([
      {
        RewardType: 2,
        ProductId: '',
        GrossRewardValue: 5,
        RewardTriggeringPositionId: 0,
        CouponId: schemeIds[0],
        Name: 'Coffee card',
      },
    ]);
    expect(answer.Balances).toEqual([{ TokenId: 'CARD-1', Balance: 0, CurrencyISO: 'EUR' }]);
    const granted = await grant(term, second);
    expect(granted.LoyaltyInfo[0]?.Details[0]).toMatchObject({ PreviousPoints: 48, NewPoints: 10 });
    const third = await upload(term, id(), basket([{ id: 1, plu: 'X', amount: 1, price: 1 }]), {
      consumerIdentToken: 'CARD-1',
    });
    expect(third.LoyaltyInfo[0]?.Details[0]).toMatchObject({ PreviousPoints: 10, NewPoints: 11 });
  });

  it('redeemedInPos=false books no redemption: no points spent, earned points count', async () => {
    const { term } = await merchantWith(
      [],
      [
        {
          name: 'Stamps',
          earn: [{ per: 'amount', amount: 1, points: 1 }],
          reward: { threshold: 10, type: 'bill', discount: { amount: 1 } },
        },
      ],
    );
    await customerCard(term, 'CARD-2');
    const b1 = id();
    await upload(term, b1, basket([{ id: 1, plu: 'X', amount: 1, price: 9 }]), {
      consumerIdentToken: 'CARD-2',
    });
    await grant(term, b1);
    const b2 = id();
    const up = await upload(term, b2, basket([{ id: 1, plu: 'X', amount: 1, price: 5 }]), {
      consumerIdentToken: 'CARD-2',
    });
    expect(up.LoyaltyInfo[0]?.Details[0]).toMatchObject({
      PreviousPoints: 9,
      NewPoints: 4,
      GrossRewardValue: 1,
    });
    const granted = await grant(term, b2, false);
    expect(granted.Rewards).toEqual([]);
    expect(granted.LoyaltyInfo[0]?.Details[0]).toMatchObject({
      PreviousPoints: 9,
      NewPoints: 14,
      GrossRewardValue: 0,
    });
    const after = await upload(term, id(), basket([{ id: 1, plu: 'X', amount: 1, price: 0.5 }]), {
      consumerIdentToken: 'CARD-2',
    });
    expect(after.LoyaltyInfo[0]?.Details[0]?.PreviousPoints).toBe(14);
  });

  it('editing a campaign never changes what a basket uploaded before it books at the grant', async () => {
    const { term, ids } = await merchantWith([
      { name: 'A twenty', type: 'product', discount: { percent: 20 }, products: [{ plu: 'A' }] },
    ]);
    const b = id();
    await upload(term, b, basket([{ id: 1, plu: 'A', amount: 3, price: 2.45 }]));
    const edit = await t.admin('PUT', `/campaigns/${ids[0]}`, {
      name: 'A half',
      type: 'product',
      discount: { percent: 50 },
      products: [{ plu: 'A' }],
    });
    expect(edit.statusCode, edit.body).toBe(200);
    const granted = await grant(term, b);
    expect(granted.Rewards).toMatchObject([{ GrossRewardValue: 1.47, Name: 'A twenty' }]);
    const fresh = await upload(term, id(), basket([{ id: 1, plu: 'A', amount: 3, price: 2.45 }]));
    expect(fresh.Rewards).toMatchObject([{ GrossRewardValue: 3.68, Name: 'A half' }]);
  });

  it('points are never spent twice: two baskets redeeming the same points, granted together, redeem once', async () => {
    const { term } = await merchantWith(
      [],
      [
        {
          name: 'Stamps',
          earn: [{ per: 'amount', amount: 1, points: 1 }],
          reward: { threshold: 10, type: 'bill', discount: { amount: 2 } },
        },
      ],
    );
    await customerCard(term, 'CARD-3');
    const seed = id();
    await upload(term, seed, basket([{ id: 1, plu: 'X', amount: 1, price: 9.99 }]), {
      consumerIdentToken: 'CARD-3',
    });
    await grant(term, seed);
    const x = id();
    const y = id();
    for (const b of [x, y]) {
      const up = await upload(term, b, basket([{ id: 1, plu: 'X', amount: 1, price: 3 }]), {
        consumerIdentToken: 'CARD-3',
      });
      expect(up.LoyaltyInfo[0]?.Details[0]?.GrossRewardValue).toBe(2);
    }
    const [gx, gy] = await Promise.all([grant(term, x), grant(term, y)]);
    const redeemed = [gx, gy].filter((g) => (g.LoyaltyInfo[0]?.Details[0]?.GrossRewardValue ?? 0) > 0);
    expect(redeemed).toHaveLength(1);
    const after = await upload(term, id(), basket([{ id: 1, plu: 'X', amount: 1, price: 0.1 }]), {
      consumerIdentToken: 'CARD-3',
    });
    // 9 committed: the first grant earns 3 and spends 10 (2 left), the second only earns 3.
    expect(after.LoyaltyInfo[0]?.Details[0]?.PreviousPoints).toBe(5);
  });

  it('a usage limit per consumer counts granted baskets only', async () => {
    const { term } = await merchantWith([
      { name: 'Once', type: 'bill', discount: { amount: 1 }, usageLimitPerConsumer: 1 },
    ]);
    await customerCard(term, 'CARD-4');
    const b1 = id();
    const up = await upload(term, b1, basket([{ id: 1, plu: 'X', amount: 1, price: 5 }]), {
      consumerIdentToken: 'CARD-4',
    });
    expect(up.Rewards).toHaveLength(1);
    const again = await upload(term, id(), basket([{ id: 1, plu: 'X', amount: 1, price: 5 }]), {
      consumerIdentToken: 'CARD-4',
    });
    expect(again.Rewards).toHaveLength(1);
    await grant(term, b1);
    const after = await upload(term, id(), basket([{ id: 1, plu: 'X', amount: 1, price: 5 }]), {
      consumerIdentToken: 'CARD-4',
    });
    expect(after.Rewards).toEqual([]);
    const anonymous = await upload(term, id(), basket([{ id: 1, plu: 'X', amount: 1, price: 5 }]));
    expect(anonymous.Rewards).toEqual([]);
  });
});

describe.each(databases)('null in nullable operator fields on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(() => t?.close());

  it('a campaign with couponCode null has no code (null is never coerced to "")', async () => {
    const term = await setupTerminal(t);
    const res = await t.admin('POST', `/merchants/${term.serviceUserName}/campaigns`, {
      name: 'No code',
      type: 'bill',
      discount: { amount: 1 },
      couponCode: null,
      maxApplications: null,
    });
    expect(res.statusCode, res.body).toBe(201);
    const up = await term.pos('POST', '/baskets/N1', {
      body: {
        Timestamp: TS,
        HasDiscounts: false,
        Positions: [{ PositionId: 1, Unit: 0, Amount: 1, CurrentGrossPrice: 5 }],
      },
    });
    expect((up.json() as BasketAnswer).Rewards).toMatchObject([{ GrossRewardValue: 1 }]);
  });

  it('a profile with maxAmount null has no maximum (null is never coerced to 0)', async () => {
    const term = await setupTerminal(t);
    const res = await t.admin('POST', `/merchants/${term.serviceUserName}/profiles`, {
      fullName: 'Bo',
      balanceConfig: { maxAmount: null },
    });
    expect(res.statusCode, res.body).toBe(201);
    const profile = await t.admin('GET', `/profiles/${(res.json() as { id: number }).id}`);
    expect(
      (profile.json() as { balance: { config: { maxAmount: number | null } } }).balance.config.maxAmount,
    ).toBeNull();
  });
});

describe.each(databases)('a card linked between upload and grant on %s', (kind) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(() => t?.close());

  it('the grant books the points on the profile the card was linked to meanwhile', async () => {
    const term = await setupTerminal(t);
    const scheme = await t.admin('POST', `/merchants/${term.serviceUserName}/loyaltySchemes`, {
      name: 'Stamps',
      earn: [{ per: 'amount', amount: 1, points: 1 }],
    });
    expect(scheme.statusCode, scheme.body).toBe(201);
    const registered = await term.pos('POST', '/tokens/LOOSE-1', { query: { tokentype: '0' } });
    expect(registered.statusCode, registered.body).toBe(200);
    const up = await term.pos('POST', '/baskets/L1', {
      body: {
        Timestamp: TS,
        HasDiscounts: false,
        Positions: [{ PositionId: 1, Unit: 0, Amount: 1, CurrentGrossPrice: 7 }],
      },
      query: { consumerIdentToken: 'LOOSE-1' },
    });
    expect((up.json() as BasketAnswer).LoyaltyInfo[0]?.Details[0]).toMatchObject({
      PreviousPoints: 0,
      NewPoints: 7,
    });
    const profile = await t.admin('POST', `/merchants/${term.serviceUserName}/profiles`, { fullName: 'Cy' });
    const profileId = (profile.json() as { id: number }).id;
    const link = await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: 'LOOSE-1', tokenType: 0 });
    expect(link.statusCode, link.body).toBe(200);
    const granted = await term.pos('POST', '/baskets/L1/grant', { sign: 'L1' });
    expect(granted.statusCode, granted.body).toBe(200);
    const rows = await t.database.db
      .selectFrom('points_lots')
      .select(['profile_id', 'card_id', 'remaining'])
      .where('basket_id', '=', 'L1')
      .where('tracking_unit_id', '=', term.trackingUnitId)
      .execute();
    expect(rows).toEqual([{ profile_id: profileId, card_id: null, remaining: 7 }]);
  });
});
