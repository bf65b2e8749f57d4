import { zoneOffsetMinutes } from '../../src/shared/time.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApp, type Terminal, databases, setupTerminal, startApp } from '../support/harness.js';
import { type PortalSession, basket, portalCall, portalPage, portalSession } from './portal-support.js';

const PASSWORD = 'a-long-enough-password';
/** A loyalty scheme of a point per 1.00, 1.00 off the bill at 5 points. */
const POINTS = {
  earn: [{ per: 'amount', amount: 1, points: 1 }],
  reward: { threshold: 5, type: 'bill', discount: { amount: 1 } },
};

interface Answer {
  Rewards: { CouponId: number; GrossRewardValue: number }[];
}

/**
 * Campaign states for owners: paused, a campaign gives nothing at the till until it is resumed;
 * ended, it gives nothing for good. Proved through the till's real upload.
 */
describe.each(databases)('pause, resume and end a campaign (%s)', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let owner: PortalSession;
  let staff: PortalSession;
  let n = 0;

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    const users = `/merchants/${encodeURIComponent(term.serviceUserName)}/portalUsers`;
    await t.admin('POST', users, { email: `owner-states-${kind}@example.test`, password: PASSWORD });
    await t.admin('POST', users, { email: `staff-states-${kind}@example.test`, password: PASSWORD });
    owner = await portalSession(t, `owner-states-${kind}@example.test`, PASSWORD);
    staff = await portalSession(t, `staff-states-${kind}@example.test`, PASSWORD);
  });
  afterAll(() => t?.close());

  const tillRewards = async (): Promise<number[]> => {
    const basketId = `S-${++n}`;
    const res = await term.pos('POST', `/baskets/${basketId}`, { body: basket(t.clock.nowMs()) });
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as Answer).Rewards.map((r) => r.CouponId);
  };
  const change = (id: number, action: string, who = owner) =>
    portalCall(t, who, 'POST', `/campaigns/${id}/${action}`);

  it('a paused campaign gives no reward at the till, a resumed one does again, an ended one never again', async () => {
    const created = await portalCall(t, owner, 'POST', '/campaigns', {
      name: 'Cappuccino 10 %',
      type: 'product',
      discount: { percent: 10 },
      products: [{ plu: '1001' }],
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { id: number }).id;
    expect(await tillRewards()).toEqual([id]);

    const paused = await change(id, 'pause');
    expect(paused.statusCode, paused.body).toBe(200);
    expect(paused.json()).toMatchObject({ id, state: 'paused', endedAt: null });
    expect((paused.json() as { pausedAt: string }).pausedAt).toBe(new Date(t.clock.nowMs()).toISOString());
    expect(await tillRewards()).toEqual([]);
    // The dry run with the live campaigns is the till: nothing from a paused one either.
    const dry = await portalCall(t, owner, 'POST', '/dryRun', {
      basket: basket(t.clock.nowMs()),
      trackingUnitId: term.trackingUnitId,
    });
    expect((dry.json() as Answer).Rewards).toEqual([]);
    // Pausing twice changes nothing; the list shows the state.
    expect((await change(id, 'pause')).json()).toMatchObject({ state: 'paused' });
    const list = (await portalCall(t, owner, 'GET', '/campaigns?limit=100')).json().data as {
      id: number;
      state: string;
    }[];
    expect(list.find((c) => c.id === id)?.state).toBe('paused');

    const resumed = await change(id, 'resume');
    expect(resumed.json()).toMatchObject({ state: 'live', pausedAt: null });
    expect(await tillRewards()).toEqual([id]);

    const ended = await change(id, 'end');
    expect(ended.json()).toMatchObject({ state: 'ended' });
    expect(await tillRewards()).toEqual([]);
    const again = await change(id, 'resume');
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ error: { code: 'rule_ended' } });
    expect(await tillRewards()).toEqual([]);
  });

  it('a paused campaign can be ended; staff may not pause, resume or end (403); another id is 404', async () => {
    const created = await portalCall(t, owner, 'POST', '/campaigns', {
      name: 'Bill 1 off',
      type: 'bill',
      discount: { amount: 1 },
    });
    const id = (created.json() as { id: number }).id;
    for (const action of ['pause', 'resume', 'end']) {
      const res = await change(id, action, staff);
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ error: { code: 'role_forbidden' } });
    }
    expect((await change(id, 'pause')).json()).toMatchObject({ state: 'paused' });
    expect((await change(id, 'end')).json()).toMatchObject({ state: 'ended' });
    expect((await change(987654321, 'pause')).statusCode).toBe(404);
  });

  it('a live campaign says where it gives its rewards, by its channels: the tills, online orders or both', async () => {
    const stateText = async (segment: string, id: number) => {
      const page = await portalPage(t, owner, `/portal/${segment}/${id}`);
      expect(page.statusCode, page.body).toBe(200);
      return /<p>(Live: [^<]*)<\/p>/.exec(page.body)?.[1];
    };
    const where: [string[] | undefined, string][] = [
      [undefined, 'Live: it gives its rewards at the tills and to online orders.'],
      [['pos', 'checkout'], 'Live: it gives its rewards at the tills and to online orders.'],
      [['pos'], 'Live: it gives its rewards at the tills.'],
      [['checkout'], 'Live: it gives its rewards to online orders.'],
    ];
    for (const [channels, text] of where) {
      const created = await portalCall(t, owner, 'POST', '/campaigns', {
        name: `Channels ${channels?.join(' and ') ?? 'absent'}`,
        type: 'product',
        discount: { percent: 10 },
        products: [{ plu: '1001' }],
        ...(channels === undefined ? {} : { channels }),
      });
      expect(created.statusCode, created.body).toBe(201);
      const id = (created.json() as { id: number }).id;
      expect(await stateText('campaigns', id), String(channels)).toBe(text);
      expect((await change(id, 'end')).statusCode).toBe(200);
    }
    // A loyalty scheme's points and rewards come at the tills.
    const scheme = await portalCall(t, owner, 'POST', '/loyaltySchemes', {
      ...POINTS,
      name: 'Points by channel',
    });
    expect(scheme.statusCode, scheme.body).toBe(201);
    const schemeId = (scheme.json() as { id: number }).id;
    expect(await stateText('loyaltySchemes', schemeId)).toBe('Live: the tills give its points and rewards.');
    // Its pause speaks of its points and rewards, not of a campaign's.
    const schemePage = await portalPage(t, owner, `/portal/loyaltySchemes/${schemeId}`);
    expect(schemePage.body).toContain('Stops its points and rewards at once');
    expect(schemePage.body).not.toContain('while an article is sold out');
    expect((await portalCall(t, owner, 'POST', `/loyaltySchemes/${schemeId}/end`)).statusCode).toBe(200);
  });

  it("a campaign's page figures: granted baskets, uses and cost per day, from the grants", async () => {
    const created = await portalCall(t, owner, 'POST', '/campaigns', {
      name: 'Croissant 0.50 off',
      type: 'product',
      discount: { amount: 0.5 },
      products: [{ plu: '2001' }],
    });
    const id = (created.json() as { id: number }).id;
    for (const grant of [true, true, false]) {
      const basketId = `ST-${++n}`;
      const body = basket(t.clock.nowMs());
      body.Positions[1] = { ...body.Positions[1], Amount: 2 } as (typeof body.Positions)[number];
      expect((await term.pos('POST', `/baskets/${basketId}`, { body })).statusCode).toBe(200);
      if (grant) {
        const g = await term.pos('POST', `/baskets/${basketId}/grant`, {
          sign: basketId,
          query: { redeemedInPos: 'true' },
        });
        expect(g.statusCode, g.body).toBe(200);
      }
    }
    const stats = await portalCall(t, staff, 'GET', `/campaigns/${id}/stats?days=7`);
    expect(stats.statusCode, stats.body).toBe(200);
    const now = t.clock.nowMs();
    const today = new Date(now + zoneOffsetMinutes('Europe/Berlin', now) * 60_000).toISOString().slice(0, 10);
    expect(stats.json()).toMatchObject({
      to: today,
      baskets: 2,
      uses: 4,
      cost: 2,
      costMinor: 200,
      days: [{ day: today, baskets: 2, uses: 4, costMinor: 200 }],
    });
    expect((await portalCall(t, owner, 'GET', '/campaigns/987654321/stats')).statusCode).toBe(404);
  });

  it("a loyalty scheme's page figures: baskets, points earned and redeemed, and its rewards' value in money, apart", async () => {
    const created = await portalCall(t, owner, 'POST', '/loyaltySchemes', { ...POINTS, name: 'Points' });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { id: number }).id;
    const profile = await t.admin('POST', `/merchants/${term.serviceUserName}/profiles`, {
      fullName: 'Ada',
      email: 'ada@example.org',
    });
    const profileId = (profile.json() as { id: number }).id;
    const link = await t.admin('POST', `/profiles/${profileId}/tokens`, {
      tokenId: 'CARD-STATS',
      tokenType: 0,
    });
    expect(link.statusCode, link.body).toBe(200);
    // What the till was told: the points before and after each basket and the value redeemed
    // (each 1.00 off costs 5 points).
    let earned = 0;
    let redeemedMinor = 0;
    for (let i = 0; i < 2; i++) {
      const basketId = `SS-${++n}`;
      const body = { ...basket(t.clock.nowMs()), ContextIdentifiers: ['CARD-STATS'] };
      const res = await term.pos('POST', `/baskets/${basketId}`, { body });
      expect(res.statusCode, res.body).toBe(200);
      const g = await term.pos('POST', `/baskets/${basketId}/grant`, {
        sign: basketId,
        query: { redeemedInPos: 'true' },
      });
      expect(g.statusCode, g.body).toBe(200);
      type Details = { PreviousPoints: number; NewPoints: number; GrossRewardValue: number };
      const answer = res.json() as { LoyaltyInfo: { LoyaltyId: number; Details: Details[] }[] };
      const d = answer.LoyaltyInfo.find((l) => l.LoyaltyId === id)?.Details[0];
      if (d === undefined) throw new Error('the basket touched no scheme');
      const valueMinor = Math.round(d.GrossRewardValue * 100);
      redeemedMinor += valueMinor;
      earned += d.NewPoints - d.PreviousPoints + (valueMinor / 100) * 5;
    }
    // The second basket redeemed what the first earned; both earned per euro spent.
    expect(redeemedMinor).toBeGreaterThan(0);
    const stats = await portalCall(t, staff, 'GET', `/loyaltySchemes/${id}/stats`);
    expect(stats.statusCode, stats.body).toBe(200);
    expect(stats.json()).toMatchObject({
      baskets: 2,
      pointsRedeemed: (redeemedMinor / 100) * 5,
      pointsEarned: earned,
      cost: redeemedMinor / 100,
      costMinor: redeemedMinor,
    });
    // The scheme's page gives each day the value of its rewards, as it gives a campaign's cost.
    const page = await t.app.inject({
      method: 'GET',
      url: `/portal/loyaltySchemes/${id}`,
      headers: { cookie: staff.cookie },
    });
    expect(page.statusCode).toBe(200);
    const table = page.body.slice(page.body.indexOf('id="rule-days"'));
    const row = table.slice(table.indexOf('<tbody>'), table.indexOf('</tbody>'));
    expect(row).toContain(`€${(redeemedMinor / 100).toFixed(2)}`);
  });

  it('an owner reads and changes a campaign and a loyalty scheme by id: each change is a new version; a scheme is paused, resumed and ended like a campaign', async () => {
    const campaign = {
      name: 'Croissant 20 %',
      type: 'product',
      discount: { percent: 20 },
      products: [{ plu: '2001' }],
    };
    const made = (await portalCall(t, owner, 'POST', '/campaigns', campaign)).json() as { id: number };
    const changed = await portalCall(t, owner, 'PUT', `/campaigns/${made.id}`, {
      ...campaign,
      discount: { percent: 25 },
    });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toEqual({ id: made.id, version: 2 });
    const read = await portalCall(t, staff, 'GET', `/campaigns/${made.id}`);
    expect(read.statusCode, read.body).toBe(200);
    expect(read.json()).toMatchObject({ id: made.id, version: 2, name: 'Croissant 20 %', state: 'live' });

    const scheme = {
      name: 'Coffee card',
      earn: [{ per: 'unit', products: [{ plu: '1001' }], points: 1 }],
      reward: { threshold: 10, type: 'product', products: [{ plu: '1001' }], discount: { percent: 100 } },
      pointsExpireAfterDays: 365,
    };
    const created = await portalCall(t, owner, 'POST', '/loyaltySchemes', scheme);
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { id: number }).id;
    const put = await portalCall(t, owner, 'PUT', `/loyaltySchemes/${id}`, {
      ...scheme,
      name: 'Coffee card 2',
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toEqual({ id, version: 2 });
    expect((await portalCall(t, staff, 'GET', `/loyaltySchemes/${id}`)).json()).toMatchObject({
      id,
      version: 2,
      name: 'Coffee card 2',
      state: 'live',
    });
    // The list shows the current version with its state.
    const listed = (await portalCall(t, staff, 'GET', '/loyaltySchemes')).json() as { data: unknown[] };
    expect(listed.data).toContainEqual(
      expect.objectContaining({ id, version: 2, name: 'Coffee card 2', state: 'live' }),
    );
    const states = [];
    for (const action of ['pause', 'resume', 'end']) {
      const res = await portalCall(t, owner, 'POST', `/loyaltySchemes/${id}/${action}`);
      expect(res.statusCode, res.body).toBe(200);
      states.push((res.json() as { state: string }).state);
    }
    expect(states).toEqual(['paused', 'live', 'ended']);
  });
});
