import { cpus } from 'node:os';
import { gzipSync } from 'node:zlib';
import { Pool } from 'undici';
import { HttpClient, setupTerminalHttp } from '../test/support/http-pos.js';
import { BENCH_ADMIN_TOKEN, type Kind, freshDatabase, startService, withTeardown } from './lib/server.js';

/**
 * Peak memory of the compiled server under 20 concurrent maximum-size request bodies, all
 * gzip-compressed: first from callers without credentials (refused before the body is read),
 * then from an activated terminal (inflated and parsed up to the body limit). Run with
 * `npm run build && npx tsx bench/body-flood.bench.ts` (BENCH_DATABASES=pglite,postgres to choose);
 * docs/security.md quotes the figures.
 */

const CONCURRENCY = 20;
const ROUNDS = 3;
/** The service's default request body limit after decompression (BODY_LIMIT_BYTES). */
const BODY_LIMIT_BYTES = 5 * 1024 * 1024;
/** The default limit of the bulk upload (BULK_BODY_LIMIT_BYTES). */
const BULK_LIMIT_BYTES = 256 * 1024 * 1024;

/**
 * A JSON basket just under the body limit that parses (10,000 positions, the longest list
 * accepted, with long text), so that an authenticated request costs all the reading it can.
 */
function largestBasket(): Buffer {
  const positions: string[] = [];
  const filler = 'x'.repeat(Math.floor(BODY_LIMIT_BYTES / 10_000) - 120);
  for (let i = 0; i < 10_000; i++) {
    positions.push(
      `{"PositionId":${i + 1},"ProductId":"${filler}","Unit":0,"Amount":1,"CurrentGrossPrice":1.5}`,
    );
  }
  const json = `{"Timestamp":"2026-03-02T16:59:00+01:00","HasDiscounts":false,"CurrencyISO":"EUR","TotalValue":1.5,"Positions":[${positions.join(',')}]}`;
  if (json.length > BODY_LIMIT_BYTES) throw new Error(`basket of ${json.length} bytes is over the limit`);
  return gzipSync(json);
}

interface Phase {
  name: string;
  path: (i: number) => string;
  headers: Record<string, string>;
  body: Buffer;
}

async function flood(pool: Pool, phase: Phase): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  for (let round = 0; round < ROUNDS; round++) {
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_v, i) => {
        const res = await pool.request({
          method: 'POST',
          path: phase.path(round * CONCURRENCY + i),
          headers: {
            'content-type': 'application/json',
            'content-encoding': 'gzip',
            accept: 'application/json',
            ...phase.headers,
          },
          body: phase.body,
        });
        await res.body.dump();
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      }),
    );
  }
  return statuses;
}

export async function runBodyFlood(kinds: Kind[]): Promise<string[]> {
  const basket = largestBasket();
  const bomb = gzipSync(Buffer.alloc(BODY_LIMIT_BYTES + 1024 * 1024, 0x20));
  const bulkBomb = gzipSync(Buffer.alloc(BULK_LIMIT_BYTES - 1024, 0x20));
  const lines: string[] = [];
  for (const kind of kinds) {
    await withTeardown(async (made) => {
      const db = await made.add(freshDatabase(kind, 'flood'), (d) => d.drop());
      const server = await made.add(startService(db.env), (s) => s.stop());
      const client = new HttpClient(server.baseUrl, BENCH_ADMIN_TOKEN);
      const term = await setupTerminalHttp(client, `flood-${kind}`);
      const sid = (
        (await client.pos(term, 'GET', '/sortiments', { query: { thirdPartySortimentIdentifier: 'flood' } }))
          .body as { serviceSortimentId: string }
      ).serviceSortimentId;
      await client.close();
      const pool = new Pool(server.baseUrl, { connections: CONCURRENCY, pipelining: 1 });
      const idle = server.hwmMiB();
      const auth = { devkey: term.devKey, trackingunitid: term.trackingUnitId };
      const phases: Phase[] = [
        {
          name: 'no credentials, basket',
          path: (i) => `/api/pos/v3/baskets/f-${i}`,
          headers: {},
          body: basket,
        },
        {
          name: 'no credentials, gzip bomb',
          path: (i) => `/api/pos/v3/baskets/f-${i}`,
          headers: {},
          body: bomb,
        },
        {
          name: 'no credentials, bulk bomb (256 MiB inflated)',
          path: () => `/api/pos/v3/sortiments/${sid}/bulkUpload?changedArticlesOnly=true`,
          headers: { devkey: term.devKey, trackingunitid: 'unknown' },
          body: bulkBomb,
        },
        {
          name: 'terminal, 5 MiB basket',
          path: (i) => `/api/pos/v3/baskets/a-${i}`,
          headers: auth,
          body: basket,
        },
        { name: 'terminal, gzip bomb', path: (i) => `/api/pos/v3/baskets/a-${i}`, headers: auth, body: bomb },
      ];
      lines.push(
        `${kind}: idle VmHWM ${idle.toFixed(0)} MiB; bodies gzip: basket ${basket.length} B (${BODY_LIMIT_BYTES} B inflated), ` +
          `bomb ${bomb.length} B, bulk bomb ${bulkBomb.length} B`,
      );
      for (const phase of phases) {
        const started = Date.now();
        const statuses = await flood(pool, phase);
        lines.push(
          `${kind}: ${phase.name}: ${ROUNDS} x ${CONCURRENCY} concurrent, answers ${JSON.stringify(Object.fromEntries(statuses))}, ` +
            `${((Date.now() - started) / 1000).toFixed(1)} s, server VmHWM now ${server.hwmMiB().toFixed(0)} MiB`,
        );
        console.log(lines[lines.length - 1]);
      }
      await pool.close();
    });
  }
  lines.push(`Machine: ${cpus().length} CPUs, Node ${process.version}.`);
  return lines;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const kinds = (process.env.BENCH_DATABASES ?? 'pglite,postgres').split(',') as Kind[];
  const lines = await runBodyFlood(kinds);
  console.log(lines.join('\n'));
}
