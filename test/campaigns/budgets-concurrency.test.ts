import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyPoints } from '../../src/loyalty/points-verify.store.js';
import { ADMIN_TOKEN, type TestApp, databases, startApp } from '../support/harness.js';
import { type HttpAnswer, HttpClient, type PosIdentity, setupTerminalHttp } from '../support/http-pos.js';
import { twoServers } from '../support/two-servers.js';

const GRANTS = 200;
const BUDGET = 50;

interface Granted {
  Rewards: { CouponId: number }[];
}

/** A campaign of 2.00 off the bill on the merchant of `who`; its budget is set by the caller. */
async function campaign(client: HttpClient, who: PosIdentity): Promise<number> {
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

/** GRANTS baskets uploaded (each upload previews the reward), then all granted at once, round robin. */
async function grantAllAtOnce(clients: HttpClient[], who: PosIdentity): Promise<HttpAnswer[]> {
  const [first] = clients;
  if (!first) throw new Error('no client');
  const ids = Array.from({ length: GRANTS }, () => `budget-${randomUUID()}`);
  for (let i = 0; i < ids.length; i += 20) {
    const uploads = await Promise.all(
      ids.slice(i, i + 20).map((id) =>
        first.pos(who, 'POST', `/baskets/${id}`, {
          body: {
            Timestamp: '2026-03-02T12:00:00+01:00',
            HasDiscounts: false,
            Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 2, CurrentGrossPrice: 5 }],
          },
        }),
      ),
    );
    for (const up of uploads) expect(up.status).toBe(200);
  }
  return Promise.all(
    ids.map((id, i) => {
      const client = clients[i % clients.length];
      if (!client) throw new Error('no client');
      return client.pos(who, 'POST', `/baskets/${id}/grant`, { sign: id });
    }),
  );
}

/** Every grant answered 200, exactly BUDGET of them with the campaign's reward. */
function expectBudgetBooked(answers: HttpAnswer[], campaignId: number): void {
  expect(answers.filter((a) => a.status !== 200)).toEqual([]);
  const rewarded = answers.filter((a) => (a.body as Granted).Rewards.some((r) => r.CouponId === campaignId));
  expect(rewarded).toHaveLength(BUDGET);
}

describe.each(databases)('a budget of 50 redemptions, 200 concurrent grants through HTTP on %s', (kind) => {
  let t: TestApp;
  let client: HttpClient;
  let who: PosIdentity;

  beforeAll(async () => {
    t = await startApp(kind);
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = t.app.server.address() as AddressInfo;
    client = new HttpClient(`http://127.0.0.1:${port}`, ADMIN_TOKEN, 20);
    who = await setupTerminalHttp(client, `budget-${kind}-${randomUUID().slice(0, 8)}`);
  });
  afterAll(async () => {
    await client?.close();
    await t?.close();
  });

  it('200 concurrent grants against a budget of 50 redemptions over 20 connections: exactly 50 booked', async () => {
    const id = await campaign(client, who);
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
  'a budget of 50 redemptions with two server instances on PostgreSQL',
  () => {
    const two = twoServers('punchcard_budgets');
    const { clients } = two;
    beforeAll(() => two.start(), 120_000);
    afterAll(() => two.stop());

    it('200 concurrent grants against a budget of 50 redemptions spread over two instances: exactly 50 booked', async () => {
      const [first] = clients;
      if (!first) throw new Error('no server');
      const who = await setupTerminalHttp(first, `budget-two-${randomUUID().slice(0, 8)}`);
      const id = await campaign(first, who);
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
