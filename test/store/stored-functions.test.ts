import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyLedger } from '../../src/ledger/ledger-verify.store.js';
import { verifyPoints } from '../../src/loyalty/points-verify.store.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { migrations } from '../../src/store/migrations/index.js';
import type { DB } from '../../src/store/schema.js';
import {
  type StoredFunction,
  parseStoredFunction,
  storedFunctionFiles,
} from '../../src/store/stored-functions.js';
import { orderBody, setupCheckout } from '../checkout/checkout-support.js';
import {
  type TestApp,
  type Terminal,
  databases,
  emptyTestDatabase,
  openTestDatabase,
  setupTerminal,
  startApp,
} from '../support/harness.js';

/**
 * The stored-function layer (docs/architecture.md, "The stored-function layer"; docs/decisions.md,
 * "Stored functions are files, applied by their hash"): every SQL function is one file beside its
 * module, applied whenever its text changes, and no numbered migration creates one.
 */
const files = storedFunctionFiles();

interface Proc {
  name: string;
  identity: string;
  body: string;
}

/** The functions of the database's schema, those of extensions left out. */
async function functionsOf(db: Kysely<DB>): Promise<Proc[]> {
  const rows = await sql<Proc>`
    SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS identity, p.prosrc AS body
      FROM pg_proc p
     WHERE p.pronamespace = current_schema()::regnamespace
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass
                         AND d.objid = p.oid AND d.deptype = 'e')
     ORDER BY p.proname, identity`.execute(db);
  return rows.rows;
}

async function recorded(db: Kysely<DB>): Promise<Map<string, { sha256: string; applied: string }>> {
  const rows = await sql<{ name: string; sha256: string; applied: string }>`
    SELECT name, sha256, applied_at::text AS applied FROM stored_functions`.execute(db);
  return new Map(rows.rows.map((r) => [r.name, { sha256: r.sha256, applied: r.applied }]));
}

/** `f` with its body changed by `edit` (its text, hash and body as the parser reads them). */
function edited(f: StoredFunction, edit: (text: string) => string): StoredFunction {
  return parseStoredFunction(f.path, edit(f.text));
}

function fileOf(name: string): StoredFunction {
  const f = files.find((x) => x.name === name);
  if (!f) throw new Error(`no file for ${name}`);
  return f;
}

describe('the function files', () => {
  it('no numbered migration creates, replaces or drops a function', () => {
    for (const m of migrations)
      for (const statement of m.statements)
        expect(statement, m.name).not.toMatch(/\b(CREATE|DROP)\s+(OR\s+REPLACE\s+)?FUNCTION\b/i);
  });

  it('a file holds one CREATE OR REPLACE FUNCTION of its own name, and nothing after its body', () => {
    expect(() =>
      parseStoredFunction('x/sql/f.sql', 'CREATE OR REPLACE FUNCTION g() RETURNS int AS $$ SELECT 1 $$;'),
    ).toThrow(/must start .* "CREATE OR REPLACE FUNCTION f\("/);
    expect(() =>
      parseStoredFunction(
        'x/sql/f.sql',
        'CREATE OR REPLACE FUNCTION f() RETURNS int AS $$ SELECT 1 $$; DROP TABLE t;',
      ),
    ).toThrow(/nothing but ";"/);
    expect(
      parseStoredFunction(
        'x/sql/f.sql',
        '-- why\nCREATE OR REPLACE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1 $$;\n',
      ).body,
    ).toBe(' SELECT 1 ');
  });
});

describe.each(databases)('the stored functions on %s', (kind) => {
  it('every function of the database is defined in exactly one file, with the file body, and recorded with its hash', async () => {
    const { database, drop } = await openTestDatabase(kind);
    try {
      const procs = await functionsOf(database.db);
      expect(procs.map((p) => p.name)).toEqual(files.map((f) => f.name));
      for (const f of files) expect(procs.find((p) => p.name === f.name)?.body, f.path).toBe(f.body);
      const rows = await recorded(database.db);
      expect([...rows.keys()].sort()).toEqual(files.map((f) => f.name));
      for (const f of files) expect(rows.get(f.name)?.sha256, f.path).toBe(f.sha256);
    } finally {
      await drop();
    }
  });

  it('the batched writers and the consumer’s state keep their generic plans, whatever the size of a batch', async () => {
    // docs/decisions.md, "Plans kept for batches of any size" (and "Orders in one statement": "Plans
    // kept"): left to choose, PostgreSQL planned these functions' statements afresh for small
    // batches, and at every grant.
    const { database, drop } = await openTestDatabase(kind);
    try {
      const kept = ['consumer_state', 'grant_basket', 'place_orders', 'write_baskets'];
      const rows = await sql<{ name: string; config: string[] | null }>`
        SELECT proname AS name, proconfig AS config FROM pg_proc
         WHERE pronamespace = current_schema()::regnamespace AND proname = ANY (${kept}::text[])
         ORDER BY proname`.execute(database.db);
      expect(rows.rows).toEqual(
        kept.map((name) => ({ name, config: ['plan_cache_mode=force_generic_plan'] })),
      );
    } finally {
      await drop();
    }
  });

  it('a file whose text changed is applied on the next start; the unchanged ones are not applied again', async () => {
    const { database, drop } = await openTestDatabase(kind);
    try {
      const db = database.db;
      const before = await recorded(db);
      const changed = edited(fileOf('grant_reward_minor'), (text) =>
        text.replace('BEGIN\n', 'BEGIN\n  -- The value of the rewards the grant booked.\n'),
      );
      const list = files.map((f) => (f.name === changed.name ? changed : f));
      expect(await migrateToLatest(db, migrations, list)).toEqual([]);
      const after = await recorded(db);
      expect(after.get(changed.name)?.sha256).toBe(changed.sha256);
      expect(after.get(changed.name)?.applied).not.toBe(before.get(changed.name)?.applied);
      for (const f of files.filter((x) => x.name !== changed.name))
        expect(after.get(f.name), f.name).toEqual(before.get(f.name));
      expect((await functionsOf(db)).find((p) => p.name === changed.name)?.body).toBe(changed.body);

      // The next start with the same file applies nothing.
      await migrateToLatest(db, migrations, list);
      expect(await recorded(db)).toEqual(after);
      // A function dropped by hand is made again though its file did not change.
      await sql`DROP FUNCTION random_base32(integer)`.execute(db);
      await migrateToLatest(db, migrations, list);
      expect((await functionsOf(db)).find((p) => p.name === 'random_base32')?.body).toBe(
        fileOf('random_base32').body,
      );
    } finally {
      await drop();
    }
  });

  it('a file that declares another signature replaces the function of the old one; a file removed drops its function', async () => {
    const { database, drop } = await openTestDatabase(kind);
    try {
      const db = database.db;
      const probe = (text: string) => parseStoredFunction('store/sql/probe_total.sql', text);
      const one = probe(
        'CREATE OR REPLACE FUNCTION probe_total(a integer) RETURNS integer LANGUAGE sql AS $$ SELECT a $$;',
      );
      const two = probe(
        'CREATE OR REPLACE FUNCTION probe_total(a integer, b integer) RETURNS integer LANGUAGE sql AS $$ SELECT a + b $$;',
      );
      const wider = probe(
        'CREATE OR REPLACE FUNCTION probe_total(a integer, b integer) RETURNS bigint LANGUAGE sql AS $$ SELECT a::bigint + b $$;',
      );
      const signatures = async () =>
        (await functionsOf(db)).filter((p) => p.name === 'probe_total').map((p) => p.identity);
      await migrateToLatest(db, migrations, [...files, one]);
      expect(await signatures()).toEqual(['a integer']);
      await migrateToLatest(db, migrations, [...files, two]);
      expect(await signatures()).toEqual(['a integer, b integer']);
      // Another result of the same arguments: CREATE OR REPLACE cannot do it, the old one is dropped first.
      await migrateToLatest(db, migrations, [...files, wider]);
      const total = await sql<{ total: string }>`SELECT probe_total(2, 3)::text AS total`.execute(db);
      expect(total.rows).toEqual([{ total: '5' }]);
      expect(
        (
          await sql<{
            result: string;
          }>`SELECT pg_get_function_result('probe_total'::regproc) AS result`.execute(db)
        ).rows,
      ).toEqual([{ result: 'bigint' }]);
      await migrateToLatest(db, migrations, files);
      expect(await signatures()).toEqual([]);
      expect((await recorded(db)).has('probe_total')).toBe(false);
    } finally {
      await drop();
    }
  });

  it('a function a generated column uses keeps its signature: a file changing it stops the migration, which changes nothing', async () => {
    const { database, drop } = await openTestDatabase(kind);
    try {
      const db = database.db;
      const before = await recorded(db);
      const jsonb = edited(fileOf('grant_reward_minor'), (text) =>
        text.replace('grant_reward_minor(g json)', 'grant_reward_minor(g jsonb)'),
      );
      await expect(
        migrateToLatest(
          db,
          migrations,
          files.map((f) => (f.name === jsonb.name ? jsonb : f)),
        ),
      ).rejects.toThrow(/stored function grant_reward_minor\(g json\) cannot be dropped/);
      expect(await recorded(db)).toEqual(before);
      expect((await functionsOf(db)).filter((p) => p.name === 'grant_reward_minor')).toEqual([
        { name: 'grant_reward_minor', identity: 'g json', body: fileOf('grant_reward_minor').body },
      ]);
    } finally {
      await drop();
    }
  });

  it('servers starting together on a new database: one migrates, the other finds it done, neither fails', async () => {
    const { database, drop } = await emptyTestDatabase(kind);
    try {
      const answers = await Promise.all([migrateToLatest(database.db), migrateToLatest(database.db)]);
      expect(answers.map((a) => a.length).sort((a, b) => a - b)).toEqual([0, migrations.length]);
      expect([...(await recorded(database.db)).keys()].sort()).toEqual(files.map((f) => f.name));
      expect((await functionsOf(database.db)).map((p) => p.name)).toEqual(files.map((f) => f.name));
    } finally {
      await drop();
    }
  });
});

/**
 * The migrations of a start run in one transaction: a start cut off half-way (its process killed,
 * its connection ended) leaves the database at the version before, and the next start migrates it
 * whole (docs/decisions.md, "Stored functions are files, applied by their hash": "One transaction, one lock").
 */
describe.each(databases.filter((k) => k === 'postgres'))('a migration cut off half-way on %s', () => {
  it('its connection ended while it waited for a table another session held, after two of the migrations it had to run: nothing of them is left, and the next start applies them all', async () => {
    const { database, drop } = await emptyTestDatabase('postgres');
    const db = database.db;
    // The database as it was before 0050: the start has 0050 and 0051 to run before 0052, which
    // waits for the table held below, and those after it.
    const from = migrations.findIndex((m) => m.name === '0050-sortiment-article-json');
    const pending = migrations.slice(from).map((m) => m.name);
    const state = async () => {
      const names = await sql<{ name: string }>`SELECT name FROM kysely_migration ORDER BY name`.execute(db);
      const index = await sql<{ found: string | null }>`
        SELECT to_regclass('checkout_orders_merchant_time')::text AS found`.execute(db);
      const columns = await sql<{ column_name: string; data_type: string }>`
        SELECT column_name, data_type FROM information_schema.columns
         WHERE (table_name = 'sortiment_articles' AND column_name = 'body')
            OR (table_name = 'checkout_idempotency_keys' AND column_name = 'claim')
         ORDER BY column_name`.execute(db);
      return {
        migrations: names.rows.map((r) => r.name),
        index: index.rows[0]?.found ?? null,
        columns: columns.rows,
      };
    };
    try {
      await migrateToLatest(db, migrations.slice(0, from));
      const before = await state();
      expect(before.migrations).toHaveLength(from);
      expect(before.index).toBe('checkout_orders_merchant_time');
      expect(before.columns).toEqual([{ column_name: 'body', data_type: 'jsonb' }]);

      await db.connection().execute(async (holder) => {
        await sql`BEGIN`.execute(holder);
        try {
          // Migration 0052 alters this table: the start waits for it after running the two before.
          await sql`LOCK TABLE checkout_idempotency_keys IN ACCESS EXCLUSIVE MODE`.execute(holder);
          const start = migrateToLatest(db).then(
            () => 'migrated',
            (err: unknown) => String(err),
          );
          // The start's connection, waiting for the table (pg_locks is read live; pg_stat_activity
          // would be read once per transaction of this session).
          let pid: number | undefined;
          for (let i = 0; i < 200 && pid === undefined; i += 1) {
            const waiting = await sql<{ pid: number }>`
              SELECT pid FROM pg_locks
               WHERE NOT granted AND relation = 'checkout_idempotency_keys'::regclass`.execute(holder);
            pid = waiting.rows[0]?.pid;
            if (pid === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
          }
          expect(pid).toBeDefined();
          // By then it had run the two migrations before: it holds what they altered.
          const held = await sql<{ name: string }>`
            SELECT DISTINCT relation::regclass::text AS name FROM pg_locks
             WHERE pid = ${pid ?? 0} AND granted AND mode = 'AccessExclusiveLock'
               AND relation::regclass::text IN ('sortiment_articles', 'checkout_orders_merchant_time')
             ORDER BY 1`.execute(holder);
          expect(held.rows.map((r) => r.name)).toEqual([
            'checkout_orders_merchant_time',
            'sortiment_articles',
          ]);
          // Cut off as a killed process is: its connection ends with its transaction open.
          await sql`SELECT pg_terminate_backend(${pid ?? 0})`.execute(holder);
          expect(await start).toMatch(/terminat/i);
        } finally {
          await sql`ROLLBACK`.execute(holder);
        }
      });
      expect(await state()).toEqual(before);

      expect(await migrateToLatest(db)).toEqual(pending);
      expect(await state()).toEqual({
        migrations: migrations.map((m) => m.name).sort(),
        index: null,
        columns: [
          { column_name: 'body', data_type: 'json' },
          { column_name: 'claim', data_type: 'text' },
        ],
      });
    } finally {
      await drop();
    }
  });
});

/**
 * A database the previous version made: the same functions, created by its numbered migrations
 * (their text indented as the migrations held them), and no `stored_functions`. The first start of
 * this version applies every file and changes no balance or points figure.
 */
describe.each(databases)('a database of the previous version, upgraded, on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  const card = 'UPGRADE-CARD-1';

  beforeAll(async () => {
    t = await startApp(kind);
  });
  afterAll(async () => {
    await t?.close();
  });

  const figures = async () => {
    const db = t.database.db;
    const accounts = await db
      .selectFrom('ledger_accounts')
      .select(['id', 'balance_minor'])
      .orderBy('id')
      .execute();
    const transfers = await db
      .selectFrom('ledger_transfers')
      .select(['id', 'amount_minor', 'balance_after_minor'])
      .orderBy('id')
      .execute();
    const lots = await db
      .selectFrom('points_lots')
      .select(['id', 'points', 'remaining'])
      .orderBy('id')
      .execute();
    const movements = await db
      .selectFrom('points_movements')
      .select(['id', 'points'])
      .orderBy('id')
      .execute();
    const usages = await db.selectFrom('campaign_usages').select(['basket_id', 'used', 'released']).execute();
    // The generated columns the portal reads (their functions are stored functions too).
    const baskets = await sql`SELECT basket_id, reward_minor, gross_minor, reward_campaign_ids::text AS ids,
                                     reward_campaign_minor::text AS minor, sales_lines::text AS lines
                                FROM baskets ORDER BY basket_id`.execute(db);
    return { accounts, transfers, lots, movements, usages, baskets: baskets.rows };
  };

  const traffic = async (prefix: string) => {
    const b = (id: string, price: number) =>
      term.pos('POST', `/baskets/${prefix}${id}`, {
        query: { consumerIdentToken: card },
        body: {
          Timestamp: '2026-03-02T12:00:00+01:00',
          HasDiscounts: false,
          CurrencyISO: 'EUR',
          Positions: [{ PositionId: 1, ProductId: '1001', Unit: 0, Amount: 1, CurrentGrossPrice: price }],
        },
      });
    for (const [id, price] of [
      ['A', 6],
      ['B', 5],
      ['C', 2.5],
    ] as const) {
      expect((await b(id, price)).statusCode).toBe(200);
      expect(
        (await term.pos('POST', `/baskets/${prefix}${id}/grant`, { sign: `${prefix}${id}` })).statusCode,
      ).toBe(200);
    }
    const add = await term.pos('POST', `/tokens/${card}/addBalance`, {
      query: { balanceToAdd: '20' },
      sign: `${card}20`,
    });
    expect(add.statusCode, add.body).toBe(200);
    const withdraw = await term.pos('POST', `/tokens/${card}/withdrawBalance`, {
      query: { balanceToWithdraw: '7.5' },
      sign: `${card}7.5`,
    });
    expect(withdraw.statusCode, withdraw.body).toBe(200);
    const shop = await setupCheckout(t);
    const profile = await shop.profile({ balance: 1000 });
    const order = await shop.order(
      orderBody(shop, profile.card, [['1001', 2]], { totalGross: 700, balance: { requestCharge: true } }),
    );
    expect(order.statusCode, order.body).toBe(200);
  };

  it('the first start applies every file and keeps every balance and points figure; grants, withdrawals and orders go on', async () => {
    const db = t.database.db;
    term = await setupTerminal(t);
    const u = encodeURIComponent(term.serviceUserName);
    const scheme = await t.admin('POST', `/merchants/${u}/loyaltySchemes`, {
      name: 'Coffee card',
      earn: [{ per: 'amount', amount: 1, points: 1 }],
      reward: { threshold: 10, type: 'product', products: [{ plu: '1001' }], discount: { percent: 100 } },
    });
    expect(scheme.statusCode).toBe(201);
    expect((await term.pos('POST', `/tokens/${card}`, { query: { tokentype: '0' } })).statusCode).toBe(200);
    await traffic('OLD-');

    // As the previous version left it: its functions' text, no record of them.
    for (const f of files) {
      const indented = f.body.replace(/\n/g, '\n     ');
      await sql.raw(f.text.replace(f.body, indented)).execute(db);
    }
    await sql`DROP TABLE stored_functions`.execute(db);
    const before = await figures();
    expect((await verifyLedger(db)).violations).toEqual([]);
    expect((await verifyPoints(db)).violations).toEqual([]);

    expect(await migrateToLatest(db)).toEqual([]);
    expect(await figures()).toEqual(before);
    expect((await verifyLedger(db)).violations).toEqual([]);
    expect((await verifyPoints(db)).violations).toEqual([]);
    for (const f of files)
      expect((await functionsOf(db)).find((p) => p.name === f.name)?.body, f.path).toBe(f.body);
    expect([...(await recorded(db)).keys()].sort()).toEqual(files.map((f) => f.name));

    await traffic('NEW-');
    expect((await verifyLedger(db)).violations).toEqual([]);
    expect((await verifyPoints(db)).violations).toEqual([]);
    const after = await figures();
    expect(after.transfers.length).toBeGreaterThan(before.transfers.length);
    expect(after.lots.length).toBeGreaterThan(before.lots.length);
  });
});
