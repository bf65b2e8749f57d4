import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { loadDashboard } from '../src/portal/dashboard.routes.js';
import { openDatabase } from '../src/store/db.js';
import { migrateToLatest } from '../src/store/migrate.js';

/**
 * The portal's dashboard over 100,000 baskets on PostgreSQL: one merchant, 5 outlets, 90 days,
 * 60 % of the baskets granted with a campaign reward, as many campaign usages, 100,000 points
 * movements, next to 200,000 baskets of another merchant. Each range is asked 9 times; the baseline is the same queries with the indexes of
 * migration 0014 dropped, in the same run and the same database.
 */
const BASKETS = 100_000;
const DAYS = 90;
const ROUNDS = 9;

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

export async function seed(
  db: Parameters<typeof migrateToLatest>[0],
): Promise<{ merchantId: number; endDay: string }> {
  const run = (q: ReturnType<typeof sql>) => q.execute(db);
  await run(sql`INSERT INTO dev_keys (key_sha256, name) VALUES ('bench', 'Bench vendor')`);
  const m = await sql<{ id: number }>`
    INSERT INTO merchants (service_user_name, display_name, currency, time_zone)
    VALUES ('bench-cafe', 'Bench café', 'EUR', 'Europe/Berlin') RETURNING id`.execute(db);
  const merchantId = Number(m.rows[0]?.id);
  await run(
    sql`INSERT INTO outlets (merchant_id, name) SELECT ${merchantId}, 'Outlet ' || g FROM generate_series(1, 5) g`,
  );
  await run(sql`
    INSERT INTO tracking_units (merchant_id, id, dev_key_id, outlet_id, instance_name, checksum_secret, activated)
    SELECT ${merchantId}, 'unit-' || o.id, 1, o.id, 'Till ' || o.id, 'secret', true FROM outlets o`);
  await run(sql`
    INSERT INTO campaigns (merchant_id, version, name, type, definition, engine, updated_at)
    SELECT ${merchantId}, 1, 'Campaign ' || g, 'product', '{}', '{}', now() FROM generate_series(1, 10) g`);
  await run(sql`
    INSERT INTO loyalty_schemes (merchant_id, version, name, definition, engine, updated_at)
    VALUES (${merchantId}, 1, 'Stamps', '{}', '{}', now())`);
  // Baskets spread evenly over the 90 days before now, round robin over the outlets.
  await run(sql`
    INSERT INTO baskets (merchant_id, tracking_unit_id, basket_id, outlet_id, timestamp_utc,
                         timestamp_offset_minutes, currency, total_value_minor, body, result,
                         uploaded_at, granted_at, grant_result)
    SELECT ${merchantId}, 'unit-' || o.id, 'b-' || g, o.id,
           now() - (g * (${DAYS}::float8 * 86400 / ${BASKETS})) * interval '1 second', 60, 'EUR',
           500 + (g % 3000), '{}', '{}', now(),
           CASE WHEN g % 5 < 3 THEN now() END,
           CASE WHEN g % 5 < 3 THEN json_build_object('booking', json_build_object('rewards', json_build_array(
             json_build_object('couponId', c.id, 'grossRewardMinor', 50 + g % 200, 'source', 'campaign')))) END
      FROM generate_series(1, ${BASKETS}) g
      JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM outlets) o ON o.k = g % 5
      JOIN (SELECT id, row_number() OVER (ORDER BY id) - 1 AS k FROM campaigns) c ON c.k = g % 10`);
  // The other tenants of the database: 200,000 baskets of another merchant in the same days.
  const other = await sql<{ id: number }>`
    INSERT INTO merchants (service_user_name, display_name, currency, time_zone)
    VALUES ('bench-other', 'Other', 'EUR', 'Europe/Berlin') RETURNING id`.execute(db);
  await run(sql`
    INSERT INTO baskets (merchant_id, tracking_unit_id, basket_id, outlet_id, timestamp_utc,
                         timestamp_offset_minutes, currency, total_value_minor, body, result, uploaded_at)
    SELECT ${Number(other.rows[0]?.id)}, 'other-unit', 'o-' || g, 1,
           now() - (g * (${DAYS}::float8 * 86400 / ${2 * BASKETS})) * interval '1 second', 60, 'EUR',
           700, '{}', '{}', now()
      FROM generate_series(1, ${2 * BASKETS}) g`);
  await run(sql`
    INSERT INTO campaign_usages (merchant_id, tracking_unit_id, basket_id, campaign_id, used, created_at)
    SELECT b.merchant_id, b.tracking_unit_id, b.basket_id,
           ((b.grant_result->'booking'->'rewards'->0->>'couponId'))::bigint, 1, b.timestamp_utc
      FROM baskets b WHERE b.grant_result IS NOT NULL`);
  await run(sql`
    INSERT INTO points_movements (merchant_id, scheme_id, card_id, kind, points, tracking_unit_id,
                                  basket_id, created_at, pre_opening)
    SELECT b.merchant_id, s.id, 1, CASE WHEN g % 4 = 0 THEN 'spend' ELSE 'earn' END,
           CASE WHEN g % 4 = 0 THEN -10 ELSE 1 END, b.tracking_unit_id, b.basket_id, b.timestamp_utc, true
      FROM generate_series(1, ${BASKETS}) g
      JOIN baskets b ON b.basket_id = 'b-' || g
      CROSS JOIN loyalty_schemes s`);
  await run(sql`VACUUM ANALYZE`);
  const end = await sql<{
    d: string;
  }>`SELECT to_char(now() AT TIME ZONE 'Europe/Berlin', 'YYYY-MM-DD') AS d`.execute(db);
  return { merchantId, endDay: end.rows[0]?.d ?? '' };
}

function dayBefore(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10);
}

export interface DashboardFigure {
  range: string;
  baskets: number;
  indexedMedianMs: number;
  indexedMaxMs: number;
  baselineMedianMs: number;
}

export async function runPortalDashboardBench(): Promise<DashboardFigure[]> {
  const url =
    process.env.BENCH_POSTGRES_URL ??
    process.env.TEST_DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `punchcard_bench_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const database = await openDatabase({ databaseUrl: withDatabase(url, name), dataDir: null, poolSize: 2 });
  try {
    await migrateToLatest(database.db);
    const { merchantId, endDay } = await seed(database.db);
    const ranges = [
      { range: '30 days', from: dayBefore(endDay, 29) },
      { range: '90 days (every basket)', from: dayBefore(endDay, DAYS) },
    ];
    const measure = async (from: string) => {
      const times: number[] = [];
      let baskets = 0;
      for (let i = 0; i < ROUNDS; i += 1) {
        const started = performance.now();
        const d = await loadDashboard(
          database.db,
          { merchantId, timeZone: 'Europe/Berlin', currency: 'EUR' },
          { from, to: endDay },
          Date.now(),
        );
        times.push(performance.now() - started);
        baskets = d.totals.baskets + d.totals.openBaskets;
      }
      times.sort((a, b) => a - b);
      return { median: times[Math.floor(ROUNDS / 2)] ?? 0, max: times[ROUNDS - 1] ?? 0, baskets };
    };
    type Measured = Awaited<ReturnType<typeof measure>>;
    const indexed: Measured[] = [];
    for (const r of ranges) indexed.push(await measure(r.from));
    await sql`DROP INDEX baskets_merchant_sales, points_movements_merchant_time, campaign_usages_merchant_time`.execute(
      database.db,
    );
    const baseline: Measured[] = [];
    for (const r of ranges) baseline.push(await measure(r.from));
    return ranges.map((r, i) => ({
      range: r.range,
      baskets: indexed[i]?.baskets ?? 0,
      indexedMedianMs: Math.round(indexed[i]?.median ?? 0),
      indexedMaxMs: Math.round(indexed[i]?.max ?? 0),
      baselineMedianMs: Math.round(baseline[i]?.median ?? 0),
    }));
  } finally {
    await database.close();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}
