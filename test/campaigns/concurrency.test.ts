import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPoints } from '../../src/loyalty/points-verify.store.js';
import { ADMIN_TOKEN, type TestApp, databases, startApp } from '../support/harness.js';
import { type HttpAnswer, HttpClient, type PosIdentity, setupTerminalHttp } from '../support/http-pos.js';
import { BENCH_ADMIN_TOKEN, type RunningServer } from '../../bench/lib/server.js';
import { type ServiceDatabase, serviceDatabase, startService } from '../support/child-service.js';
import { twoServers } from '../support/two-servers.js';

/**
 * Two rules of a campaign that concurrent grants must not break: a unique code is redeemed once, a
 * budget of redemptions is never exceeded. Both run on one test app per database and on one pair
 * of server processes, each test on a merchant of its own: a server process's start costs some 5 s
 * of CPU (docs/performance.md, "Test suite").
 */

const GRANTS = 200;
const BUDGET = 50;

interface Granted {
  BasketId: string;
  Rewards: { CouponId: number; GrossRewardValue: number }[];
}

/** A campaign with unique codes on the merchant of `who`, and one code of it. */
async function campaignWithCode(client: HttpClient, who: PosIdentity): Promise<{ id: number; code: string }> {
  const u = encodeURIComponent(who.serviceUserName);
  const created = await client.admin('POST', `/merchants/${u}/campaigns`, {
    name: 'Flyer',
    type: 'bill',
    discount: { amount: 2 },
    uniqueCodes: true,
  });
  expect(created.status).toBe(201);
  const { id } = created.body as { id: number };
  expect(
    (await client.admin('POST', `/merchants/${u}/campaigns/${id}/codeBatches`, { count: 1 })).status,
  ).toBe(201);
  const codes = await client.admin('GET', `/merchants/${u}/campaigns/${id}/codes`);
  const code = (codes.body as { data: { code: string }[] }).data[0]?.code;
  if (code === undefined) throw new Error('no code');
  return { id, code };
}

/**
 * GRANTS baskets uploaded (each upload previews the reward; with `code`, every basket presents it
 * and its preview shows the code's reward), then all granted at once over the clients given, round
 * robin.
 */
async function grantAllAtOnce(clients: HttpClient[], who: PosIdentity, code?: string): Promise<HttpAnswer[]> {
  const [first] = clients;
  if (!first) throw new Error('no client');
  const ids = Array.from(
    { length: GRANTS },
    () => `${code === undefined ? 'budget' : 'code'}-${randomUUID()}`,
  );
  for (let i = 0; i < ids.length; i += 20) {
    const uploads = await Promise.all(
      ids.slice(i, i + 20).map((id) =>
        first.pos(who, 'POST', `/baskets/${id}`, {
          body: {
            Timestamp: '2026-03-02T12:00:00+01:00',
            HasDiscounts: false,
            ...(code === undefined ? {} : { ContextIdentifiers: [code] }),
            Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 2, CurrentGrossPrice: 5 }],
          },
        }),
      ),
    );
    for (const up of uploads) {
      expect(up.status).toBe(200);
      if (code !== undefined) expect((up.body as Granted).Rewards).toHaveLength(1);
    }
  }
  return Promise.all(
    ids.map((id, i) => {
      const client = clients[i % clients.length];
      if (!client) throw new Error('no client');
      return client.pos(who, 'POST', `/baskets/${id}/grant`, { sign: id });
    }),
  );
}

/** Every grant answered 200, exactly one with the code's reward; the code names that basket. */
function expectOneRedemption(answers: HttpAnswer[], campaignId: number): string {
  expect(answers.filter((a) => a.status !== 200)).toEqual([]);
  const rewarded = answers
    .map((a) => a.body as Granted)
    .filter((g) => g.Rewards.some((r) => r.CouponId === campaignId));
  expect(rewarded).toHaveLength(1);
  const [winner] = rewarded;
  if (!winner) throw new Error('no winner');
  return winner.BasketId;
}

/** A campaign of 2.00 off the bill on the merchant of `who`; its budget is set by the caller. */
async function budgetCampaign(client: HttpClient, who: PosIdentity): Promise<number> {
  const u = encodeURIComponent(who.serviceUserName);
  const created = await client.admin('POST', `/merchants/${u}/campaigns`, {
    name: 'Fifty times',
    type: 'bill',
    discount: { amount: 2 },
  });
  expect(created.status).toBe(201);
  return (created.body as { id: number }).id;
}

const SET_BUDGET = 'UPDATE campaigns SET budget_redemptions = $2 WHERE id = $1';
const USED = `SELECT (SELECT count(*)::integer FROM campaign_usages WHERE campaign_id = $1) AS usages,
  (SELECT redemptions FROM campaign_budget_usage WHERE campaign_id = $1 AND period = 'total') AS redemptions`;

/** Every grant answered 200, exactly BUDGET of them with the campaign's reward. */
function expectBudgetBooked(answers: HttpAnswer[], campaignId: number): void {
  expect(answers.filter((a) => a.status !== 200)).toEqual([]);
  const rewarded = answers.filter((a) => (a.body as Granted).Rewards.some((r) => r.CouponId === campaignId));
  expect(rewarded).toHaveLength(BUDGET);
}

describe.each(databases)('campaign rules under 200 concurrent grants through HTTP on %s', (kind) => {
  let t: TestApp;
  let client: HttpClient;

  beforeAll(async () => {
    t = await startApp(kind);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    client = new HttpClient(`http://127.0.0.1:${port}`, ADMIN_TOKEN, 20);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('one unique code: 200 concurrent grants of baskets with one code over 20 connections: exactly one booking of its reward', async () => {
    const who = await setupTerminalHttp(client, `codes-${kind}-${randomUUID().slice(0, 8)}`);
    const { id, code } = await campaignWithCode(client, who);
    const winner = expectOneRedemption(await grantAllAtOnce([client], who, code), id);
    const usages = await t.database.db
      .selectFrom('campaign_usages')
      .select(['basket_id', 'used'])
      .where('campaign_id', '=', id)
      .execute();
    expect(usages).toEqual([{ basket_id: winner, used: 1 }]);
    const row = await t.database.db
      .selectFrom('campaign_codes')
      .select(['basket_id', 'redeemed_at'])
      .where('code', '=', code)
      .executeTakeFirstOrThrow();
    expect(row.basket_id).toBe(winner);
    expect((await verifyPoints(t.database.db)).violations).toEqual([]);
  });

  it('a budget of 50 redemptions: 200 concurrent grants over 20 connections: exactly 50 booked', async () => {
    const who = await setupTerminalHttp(client, `budget-${kind}-${randomUUID().slice(0, 8)}`);
    const id = await budgetCampaign(client, who);
    await t.database.db
      .updateTable('campaigns')
      .set({ budget_redemptions: BUDGET })
      .where('id', '=', id)
      .execute();
    expectBudgetBooked(await grantAllAtOnce([client], who), id);
    const usages = await t.database.db
      .selectFrom('campaign_usages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('campaign_id', '=', id)
      .executeTakeFirstOrThrow();
    expect(Number(usages.n)).toBe(BUDGET);
    const used = await t.database.db
      .selectFrom('campaign_budget_usage')
      .select('redemptions')
      .where('campaign_id', '=', id)
      .where('period', '=', 'total')
      .executeTakeFirstOrThrow();
    expect(used.redemptions).toBe(BUDGET);
    expect((await verifyPoints(t.database.db)).violations).toEqual([]);
  });
});

describe.runIf(databases.includes('postgres'))(
  'campaign rules with two server instances on PostgreSQL',
  () => {
    const two = twoServers('punchcard_campaigns');
    const { clients } = two;
    beforeAll(() => two.start(), 120_000);
    afterAll(() => two.stop());

    it('one unique code: 200 concurrent grants with one code spread over two instances: exactly one booking of its reward', async () => {
      const [first] = clients;
      if (!first) throw new Error('no server');
      const who = await setupTerminalHttp(first, `codes-two-${randomUUID().slice(0, 8)}`);
      const { id, code } = await campaignWithCode(first, who);
      const winner = expectOneRedemption(await grantAllAtOnce(clients, who, code), id);
      const db = new pg.Client({ connectionString: two.databaseUrl });
      await db.connect();
      try {
        const usages = await db.query<{ basket_id: string; used: number }>(
          'SELECT basket_id, used FROM campaign_usages WHERE campaign_id = $1',
          [id],
        );
        expect(usages.rows).toEqual([{ basket_id: winner, used: 1 }]);
        const codeRow = await db.query<{ basket_id: string }>(
          'SELECT basket_id FROM campaign_codes WHERE code = $1',
          [code],
        );
        expect(codeRow.rows).toEqual([{ basket_id: winner }]);
      } finally {
        await db.end();
      }
    });

    it('a budget of 50 redemptions: 200 concurrent grants against it spread over two instances: exactly 50 booked', async () => {
      const [first] = clients;
      if (!first) throw new Error('no server');
      const who = await setupTerminalHttp(first, `budget-two-${randomUUID().slice(0, 8)}`);
      const id = await budgetCampaign(first, who);
      const db = new pg.Client({ connectionString: two.databaseUrl });
      await db.connect();
      try {
        await db.query(SET_BUDGET, [id, BUDGET]);
        expectBudgetBooked(await grantAllAtOnce(clients, who), id);
        const used = await db.query<{ usages: number; redemptions: number }>(USED, [id]);
        expect(used.rows).toEqual([{ usages: BUDGET, redemptions: BUDGET }]);
      } finally {
        await db.end();
      }
    });
  },
);

describe.runIf(databases.includes('postgres'))("grants and the statement's limit on PostgreSQL", () => {
  let database: ServiceDatabase;
  let server: RunningServer;
  let client: HttpClient;
  beforeAll(async () => {
    database = await serviceDatabase('postgres', 'grant_limit');
    server = await startService({
      ...database.env,
      LOG_LEVEL: 'fatal',
      DATABASE_STATEMENT_TIMEOUT_MS: '1000',
    });
    client = new HttpClient(server.baseUrl, BENCH_ADMIN_TOKEN, 8);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await server?.kill();
    await database?.drop();
  });

  it("a consumer's profile held by another session holds up only that consumer's grant: the other grants are booked meanwhile, its own answers 1010 once the statement's limit is reached and, granted again once the profile is free, earns its points once", async () => {
    const who = await setupTerminalHttp(client, `held-${randomUUID().slice(0, 8)}`);
    const u = encodeURIComponent(who.serviceUserName);
    const scheme = await client.admin('POST', `/merchants/${u}/loyaltySchemes`, {
      name: 'Coffee card',
      earn: [{ per: 'unit', products: [{ plu: '1001' }], points: 1 }],
      reward: { threshold: 10, type: 'product', products: [{ plu: '1001' }], discount: { percent: 100 } },
    });
    expect(scheme.status, JSON.stringify(scheme.body)).toBe(201);
    const profile = await client.admin('POST', `/merchants/${u}/profiles`, { fullName: 'Ada Muster' });
    expect(profile.status).toBe(201);
    const profileId = (profile.body as { id: number }).id;
    const card = `card-${randomUUID().slice(0, 12)}`;
    expect((await client.admin('POST', `/profiles/${profileId}/tokens`, { tokenId: card })).status).toBe(200);
    const upload = async (basketId: string, query?: Record<string, string>) => {
      const answer = await client.pos(who, 'POST', `/baskets/${basketId}`, {
        ...(query ? { query } : {}),
        body: {
          Timestamp: '2026-03-02T12:00:00+01:00',
          HasDiscounts: false,
          Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 2, CurrentGrossPrice: 3.2 }],
        },
      });
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    };
    const heldBasket = `held-${randomUUID()}`;
    await upload(heldBasket, { consumerIdentToken: card });
    const others = Array.from({ length: 6 }, () => `other-${randomUUID()}`);
    for (const id of others) await upload(id);
    const grant = (id: string) => client.pos(who, 'POST', `/baskets/${id}/grant`, { sign: id });

    const holder = new pg.Client({ connectionString: database.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT 1 FROM profiles WHERE id = $1 FOR UPDATE', [profileId]);
      const held = grant(heldBasket);
      const meanwhile = await Promise.race([Promise.all(others.map(grant)), sleep(20_000).then(() => null)]);
      expect(meanwhile?.map((a) => a.status)).toEqual(others.map(() => 200));
      // Without a limit the grant waits for as long as the profile is held, here until the guard.
      const answer = await Promise.race([held, sleep(20_000).then(() => null)]);
      expect(answer?.status, JSON.stringify(answer?.body)).toBe(503);
      expect((answer?.body as { ErrorId?: number } | undefined)?.ErrorId).toBe(1010);
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    const again = await grant(heldBasket);
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect((await grant(heldBasket)).status).toBe(200);
    const db = new pg.Client({ connectionString: database.env.DATABASE_URL });
    await db.connect();
    try {
      const earned = await db.query<{ points: number }>(
        "SELECT coalesce(sum(points), 0)::integer AS points FROM points_movements WHERE profile_id = $1 AND kind = 'earn'",
        [profileId],
      );
      expect(earned.rows).toEqual([{ points: 2 }]);
    } finally {
      await db.end();
    }
  }, 120_000);
});
