import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { secondTill } from '../notifications/purchase-history.js';
import { TIERS, tierScheme } from './tier-scheme.js';

/**
 * Campaigns limited to status tiers (docs/decisions.md, "Status tiers"): the campaign body's
 * `tiers: {schemeId, names}`, checked against the scheme's tiers, and applied only to consumers
 * whose tier before the basket is one of those named, at the upload and again at the grant.
 */

/** Multipliers of 1: the points earned are the basket's gross, whatever the tier. */
const scheme = (patch: object = {}) =>
  tierScheme({ tiers: TIERS.map((t) => ({ ...t, multiplier: 1 })), ...patch });

type ErrorBody = { error: { code: string; details?: { field?: string } } };
type Rewards = { Rewards: { CouponId: number; GrossRewardValue: number }[] };

describe.each(databases)('campaigns limited to status tiers on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let u: string;
  let schemeId: number;
  let plainSchemeId: number;
  let n = 0;
  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    u = encodeURIComponent(term.serviceUserName);
    const s = await t.admin('POST', `/merchants/${u}/loyaltySchemes`, scheme());
    expect(s.statusCode, s.body).toBe(201);
    schemeId = (s.json() as { id: number }).id;
    const p = await t.admin(
      'POST',
      `/merchants/${u}/loyaltySchemes`,
      scheme({ name: 'Plain', tiers: undefined, tierBasis: undefined }),
    );
    expect(p.statusCode, p.body).toBe(201);
    plainSchemeId = (p.json() as { id: number }).id;
  });
  afterAll(() => t?.close());

  const campaign = (tiers: unknown, patch: object = {}) => ({
    name: 'Silver coffee',
    type: 'product',
    discount: { amount: 1 },
    products: [{ plu: 'COFFEE' }],
    tiers,
    ...patch,
  });
  const campaignCount = async () =>
    ((await t.admin('GET', `/merchants/${u}/campaigns?limit=100`)).json().data as unknown[]).length;

  const refusals: [string, () => unknown, string][] = [
    ['an unknown scheme', () => ({ schemeId: 999_999, names: ['Silver'] }), 'tiers.schemeId'],
    ['a scheme without tiers', () => ({ schemeId: plainSchemeId, names: ['Silver'] }), 'tiers.schemeId'],
    ['an unknown tier name', () => ({ schemeId, names: ['Silver', 'Platinum'] }), 'tiers.names[1]'],
    ['an empty list', () => ({ schemeId, names: [] }), 'tiers.names'],
    ['an empty name', () => ({ schemeId, names: ['  '] }), 'tiers.names[0]'],
    ['a name twice', () => ({ schemeId, names: ['Gold', 'gold'] }), 'tiers.names[1]'],
  ];
  it.each(refusals)(
    'a campaign limited to %s is refused with 400 naming the field, nothing stored',
    async (_n, tiers, field) => {
      const before = await campaignCount();
      const res = await t.admin('POST', `/merchants/${u}/campaigns`, campaign(tiers()));
      expect(res.statusCode, res.body).toBe(400);
      const body = res.json() as ErrorBody;
      expect(body.error.code).toBe('invalid_request');
      expect(body.error.details?.field).toBe(field);
      expect(await campaignCount()).toBe(before);
    },
  );

  it('the limit is stored, read, listed and versioned with the definition; an update refused keeps the version', async () => {
    const created = await t.admin(
      'POST',
      `/merchants/${u}/campaigns`,
      campaign({ schemeId, names: ['Gold'] }),
    );
    expect(created.statusCode, created.body).toBe(201);
    const { id } = created.json() as { id: number };
    const read = async () => (await t.admin('GET', `/merchants/${u}/campaigns/${id}`)).json() as object;
    expect(await read()).toMatchObject({ version: 1, tiers: { schemeId, names: ['Gold'] } });
    const list = (await t.admin('GET', `/merchants/${u}/campaigns?limit=100`)).json() as {
      data: { id: number; tiers?: unknown }[];
    };
    expect(list.data.find((c) => c.id === id)?.tiers).toEqual({ schemeId, names: ['Gold'] });

    const refused = await t.admin(
      'PUT',
      `/merchants/${u}/campaigns/${id}`,
      campaign({ schemeId, names: ['Bronze'] }),
    );
    expect(refused.statusCode, refused.body).toBe(400);
    expect((refused.json() as ErrorBody).error.details?.field).toBe('tiers.names[0]');
    expect(await read()).toMatchObject({ version: 1, tiers: { names: ['Gold'] } });

    const updated = await t.admin(
      'PUT',
      `/merchants/${u}/campaigns/${id}`,
      campaign({ schemeId, names: ['silver', 'Gold'] }),
    );
    expect(updated.statusCode, updated.body).toBe(200);
    expect(await read()).toMatchObject({ version: 2, tiers: { schemeId, names: ['silver', 'Gold'] } });
    const v1 = await t.admin('GET', `/merchants/${u}/campaigns/${id}/versions/1`);
    expect(v1.json()).toMatchObject({ tiers: { names: ['Gold'] } });

    const cleared = await t.admin('PUT', `/merchants/${u}/campaigns/${id}`, campaign(null));
    expect(cleared.statusCode, cleared.body).toBe(200);
    expect(await read()).toMatchObject({ version: 3, tiers: null });
    await t.admin('DELETE', `/merchants/${u}/campaigns/${id}`);
  });

  it('a Silver-only campaign: not below Silver, then from the basket after the grants that reach Silver, and not again after a return lowers the measure', async () => {
    const own = await setupTerminal(t);
    const ou = encodeURIComponent(own.serviceUserName);
    const s = await t.admin('POST', `/merchants/${ou}/loyaltySchemes`, scheme());
    const sid = (s.json() as { id: number }).id;
    const c = await t.admin(
      'POST',
      `/merchants/${ou}/campaigns`,
      campaign({ schemeId: sid, names: ['Silver'] }),
    );
    expect(c.statusCode, c.body).toBe(201);
    const campaignId = (c.json() as { id: number }).id;
    const p = await t.admin('POST', `/merchants/${ou}/profiles`, { fullName: 'Tier buyer' });
    const profileId = (p.json() as { id: number }).id;
    await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: 'TIERCAMP-1', tokenType: 0 });

    const upload = async (basketId: string, price: number, token: string | null = 'TIERCAMP-1') => {
      const body = {
        Timestamp: new Date(t.clock.nowMs()).toISOString(),
        HasDiscounts: false,
        Positions: [{ PositionId: 1, ProductId: 'COFFEE', Unit: 0, Amount: 1, CurrentGrossPrice: price }],
      };
      const query: Record<string, string> = token === null ? {} : { consumerIdentToken: token };
      const up = await own.pos('POST', `/baskets/${basketId}`, { body, query });
      expect(up.statusCode, up.body).toBe(200);
      return (up.json() as Rewards).Rewards.filter((r) => r.CouponId === campaignId);
    };
    const grant = async (basketId: string) => {
      const g = await own.pos('POST', `/baskets/${basketId}/grant`, {
        sign: basketId,
        query: { redeemedInPos: 'true' },
      });
      expect(g.statusCode, g.body).toBe(200);
      return (g.json() as Rewards).Rewards.filter((r) => r.CouponId === campaignId);
    };
    const id = () => `TIERCAMP-B-${++n}`;

    // No tier yet (0 points): no reward.
    const first = id();
    expect(await upload(first, 80)).toEqual([]);
    expect(await grant(first)).toEqual([]);
    // 80 points: still below Silver.
    const second = id();
    expect(await upload(second, 30)).toEqual([]);
    // Uploaded while below Silver, another basket waits for its grant.
    const waiting = id();
    expect(await upload(waiting, 5)).toEqual([]);
    expect(await grant(second)).toEqual([]);
    // 110 points: Silver from the next basket on, at the upload and at its grant.
    const silver = [expect.objectContaining({ CouponId: campaignId, GrossRewardValue: 1 })];
    const third = id();
    expect(await upload(third, 5)).toEqual(silver);
    expect(await grant(third)).toEqual(silver);
    // A basket the till was shown without the reward is granted without it: the grant gives what
    // was deducted, never more.
    expect(await grant(waiting)).toEqual([]);
    // Anonymous basket: never.
    expect(await upload(id(), 5, null)).toEqual([]);

    // Uploaded as Silver (120 points) ...
    const fourth = id();
    expect(await upload(fourth, 5)).toEqual(silver);
    // ... then a return takes 30 points back: 90, below Silver. The grant checks the tier again
    // with the measure it reads and gives no reward; later baskets get none.
    const ret = await own.pos('POST', `/baskets/${second}/return`, {
      sign: `${second}R1`,
      body: { ReturnId: 'R1', Positions: [{ PositionId: 1, Amount: 1 }] },
    });
    expect(ret.statusCode, ret.body).toBe(200);
    expect(await grant(fourth)).toEqual([]);
    expect(await upload(id(), 5)).toEqual([]);
  });

  it('a campaign limited to the tiers of a scheme not valid at the outlet does not apply there: the consumer has no tier in that scheme at that outlet', async () => {
    const here = await setupTerminal(t);
    const there = await secondTill(t, here, 'Station');
    const hu = encodeURIComponent(here.serviceUserName);
    const s = await t.admin(
      'POST',
      `/merchants/${hu}/loyaltySchemes`,
      scheme({ outletIds: [here.outletId] }),
    );
    expect(s.statusCode, s.body).toBe(201);
    const sid = (s.json() as { id: number }).id;
    // The campaign itself is open at every outlet.
    const c = await t.admin(
      'POST',
      `/merchants/${hu}/campaigns`,
      campaign({ schemeId: sid, names: ['Silver'] }),
    );
    expect(c.statusCode, c.body).toBe(201);
    const campaignId = (c.json() as { id: number }).id;
    const p = await t.admin('POST', `/merchants/${hu}/profiles`, { fullName: 'Two outlets' });
    const profileId = (p.json() as { id: number }).id;
    await t.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: 'TIEROUT-1', tokenType: 0 });
    type Answer = Rewards & { LoyaltyInfo: { LoyaltyId: number }[] | null };
    const basket = (price: number) => ({
      Timestamp: new Date(t.clock.nowMs()).toISOString(),
      HasDiscounts: false,
      Positions: [{ PositionId: 1, ProductId: 'COFFEE', Unit: 0, Amount: 1, CurrentGrossPrice: price }],
    });
    const upload = async (till: Terminal, basketId: string, price: number) => {
      const up = await till.pos('POST', `/baskets/${basketId}`, {
        body: basket(price),
        query: { consumerIdentToken: 'TIEROUT-1' },
      });
      expect(up.statusCode, up.body).toBe(200);
      return up.json() as Answer;
    };
    const grant = async (till: Terminal, basketId: string) => {
      const g = await till.pos('POST', `/baskets/${basketId}/grant`, {
        sign: basketId,
        query: { redeemedInPos: 'true' },
      });
      expect(g.statusCode, g.body).toBe(200);
      return g.json() as Answer;
    };
    const ofCampaign = (a: Answer) => a.Rewards.filter((r) => r.CouponId === campaignId);
    const schemeLines = (a: Answer) => (a.LoyaltyInfo ?? []).filter((l) => l.LoyaltyId === sid);

    // 110 points at the scheme's outlet: Silver there from the next basket on.
    await upload(here, 'TIEROUT-B-1', 110);
    await grant(here, 'TIEROUT-B-1');
    const silver = [expect.objectContaining({ CouponId: campaignId, GrossRewardValue: 1 })];
    const atHome = await upload(here, 'TIEROUT-B-2', 5);
    expect(ofCampaign(atHome)).toEqual(silver);
    expect(schemeLines(atHome)).toHaveLength(1);

    // At the other outlet the scheme earns nothing and gives no tier: no reward at the upload or the grant.
    const away = await upload(there, 'TIEROUT-B-3', 5);
    expect(schemeLines(away)).toEqual([]);
    expect(ofCampaign(away)).toEqual([]);
    expect(ofCampaign(await grant(there, 'TIEROUT-B-3'))).toEqual([]);
  });

  it('the dry run with a chosen tier: points multiplied, tier-limited campaigns applied or left out "only for Gold"; a tier the scheme lacks is refused', async () => {
    const own = await setupTerminal(t);
    const ou = encodeURIComponent(own.serviceUserName);
    const s = await t.admin('POST', `/merchants/${ou}/loyaltySchemes`, tierScheme());
    const sid = (s.json() as { id: number }).id;
    const gold = await t.admin('POST', `/merchants/${ou}/campaigns`, {
      ...campaign({ schemeId: sid, names: ['Gold'] }),
      name: 'Gold coffee',
    });
    const goldId = (gold.json() as { id: number }).id;
    const dryRun = (tiers: Record<string, string | null>) =>
      t.admin('POST', `/merchants/${ou}/dryRun`, {
        basket: {
          Timestamp: '2026-03-02T12:00:00+01:00',
          HasDiscounts: false,
          Positions: [{ PositionId: 1, ProductId: 'COFFEE', Unit: 0, Amount: 1, CurrentGrossPrice: 11 }],
        },
        consumer: { tiers },
      });
    type Answer = Rewards & {
      LoyaltyInfo: { Details: { NewPoints: number }[] }[];
      explanations: { campaignId: number; applied: boolean; reason: string }[];
    };
    const asSilver = (await dryRun({ [sid]: 'Silver' })).json() as Answer;
    expect(asSilver.Rewards.filter((r) => r.CouponId === goldId)).toEqual([]);
    expect(asSilver.explanations.find((e) => e.campaignId === goldId)).toMatchObject({
      applied: false,
      reason: 'only for Gold',
      reasonCode: 'tier_not_held',
      tiers: ['Gold'],
    });
    // 11 points at Silver's 1.5: 16.
    expect(asSilver.LoyaltyInfo[0]?.Details[0]?.NewPoints).toBe(16);

    const asGold = (await dryRun({ [sid]: 'gold' })).json() as Answer;
    expect(asGold.explanations.find((e) => e.campaignId === goldId)).toMatchObject({ applied: true });
    // 11 - 1 off = 10 points at Gold's 2: 20.
    expect(asGold.LoyaltyInfo[0]?.Details[0]?.NewPoints).toBe(20);

    const none = (await dryRun({ [sid]: null })).json() as Answer;
    expect(none.LoyaltyInfo[0]?.Details[0]?.NewPoints).toBe(11);
    expect(none.explanations.find((e) => e.campaignId === goldId)).toMatchObject({ applied: false });

    const refused: Record<string, string>[] = [{ [sid]: 'Platinum' }, { 999999: 'Gold' }];
    for (const tiers of refused) {
      const bad = await dryRun(tiers);
      expect(bad.statusCode, bad.body).toBe(400);
      expect((bad.json() as ErrorBody).error.details?.field).toBe(`consumer.tiers.${Object.keys(tiers)[0]}`);
    }
  });
});
