import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../src/admin/auth.js';
import { buildApp } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import type { Database } from '../../src/store/db.js';
import { replicaLagSeconds } from '../../src/store/replica-lag.js';
import { basket } from '../portal/portal-support.js';
import {
  ADMIN_TOKEN,
  type TestApp,
  TestClock,
  type Terminal,
  openTestDatabase,
  setupTerminal,
} from '../support/harness.js';

const pg = process.env.TEST_DATABASE_URL ? describe : describe.skip;

/**
 * DATABASE_READ_URL: reads that decide no money come from the replica. Here the "replica" is a
 * second database that never receives the leader's writes, so whatever a page shows tells which
 * of the two it read.
 */
pg('reads that decide no money come from the replica (postgres)', () => {
  let app: FastifyInstance;
  const dbs: { database: Database; drop(): Promise<void> }[] = [];
  let combined: Database;
  let till: Terminal;
  const clock = new TestClock();
  const admin = (method: string, url: string, payload?: object) =>
    app.inject({
      method: method as 'POST',
      url: `/api/admin/v1${url}`,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      ...(payload ? { payload } : {}),
    });

  beforeAll(async () => {
    dbs.push(await openTestDatabase('postgres'), await openTestDatabase('postgres'));
    const [leader, replica] = dbs.map((d) => d.database) as [Database, Database];
    combined = { ...leader, read: replica.db, readsReplica: true };
    const config = {
      ...loadConfig({ ADMIN_TOKEN, DATA_DIR: '/tmp/punchcard-test', NODE_ENV: 'test' }),
      outboxDisabled: true,
    };
    app = await buildApp({ config, database: combined, clock, adminTokenHash: hashToken(ADMIN_TOKEN) });
    await app.ready();
    const t = { app, admin, clock } as unknown as TestApp;
    till = await setupTerminal(t);
    expect((await till.pos('POST', '/baskets/R-1', { body: basket(clock.nowMs()) })).statusCode).toBe(200);
    expect((await till.pos('POST', '/baskets/R-1/grant', { sign: 'R-1' })).statusCode).toBe(200);
  });
  afterAll(async () => {
    await app?.close();
    for (const d of dbs) await d.drop();
  });

  it("the portal's dashboard reads the replica and says how far behind it is", async () => {
    const owner = { email: 'owner@replica-cafe.test', password: 'replica-cafe-2026' };
    expect((await admin('POST', `/merchants/${till.serviceUserName}/portalUsers`, owner)).statusCode).toBe(
      201,
    );
    const signIn = await app.inject({ method: 'POST', url: '/portal/api/v1/session', payload: owner });
    expect(signIn.statusCode).toBe(200);
    const cookie = String(signIn.headers['set-cookie']).split(';')[0] ?? '';
    // A basket granted on the leader; the replica never receives it, and the dashboard reads the replica.
    const dashboard = await app.inject({
      method: 'GET',
      url: '/portal/api/v1/dashboard',
      headers: { cookie },
    });
    expect(dashboard.statusCode).toBe(200);
    const body = dashboard.json() as { replicaLagSeconds: number | null; totals: { baskets: number } };
    expect(body.replicaLagSeconds).toBe(0);
    expect(body.totals.baskets).toBe(0);
    const onLeader = await combined.db.selectFrom('baskets').select('basket_id').execute();
    expect(onLeader.map((b) => b.basket_id)).toEqual(['R-1']);
  });

  it('a database that is no replica is 0 behind; without a replica, null', async () => {
    expect(await replicaLagSeconds(combined)).toBe(0);
    expect(await replicaLagSeconds({ ...combined, read: combined.db, readsReplica: false })).toBeNull();
  });

  it('a receipt not yet on the replica is found on the leader; an unknown one is 404', async () => {
    const receipt = await combined.db.selectFrom('receipts').select('id').executeTakeFirstOrThrow();
    const found = await app.inject({ method: 'GET', url: `/receipts/${receipt.id}` });
    expect(found.statusCode).toBe(200);
    expect(found.body).toMatch(/12[.,]40/);
    const unknown = await app.inject({ method: 'GET', url: '/receipts/AAAAAAAAAAAAAAAAAAAAAA' });
    expect(unknown.statusCode).toBe(404);
  });
});
