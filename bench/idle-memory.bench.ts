import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess } from './lib/server.js';

/**
 * Idle memory of the compiled server on the embedded database (docs/performance.md, "Start-up time
 * and the embedded database's memory"): the resident set 5 s after /readyz answered and once the
 * idle server has settled (SETTLE_SEC, 90 s: V8 gives back the young generation and free heap
 * pages some 30 to 60 s after the last work), on a first start (a new DATA_DIR: initdb and every
 * migration) and on a later start of the same directory.
 *
 *   npx tsx bench/idle-memory.bench.ts      (RUNS=2, SETTLE_SEC=90; run `npm run build` first)
 */

const RUNS = Number(process.env.RUNS ?? 2);
const SETTLE_SEC = Number(process.env.SETTLE_SEC ?? 90);

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function idleRss(dataDir: string): Promise<{ rss: number; settled: number; hwm: number }> {
  const server = await startProcess(['dist/server.js'], { DATA_DIR: dataDir });
  await sleep(5_000);
  const rss = Math.round(readRss(server.pid));
  await sleep(Math.max(0, SETTLE_SEC - 5) * 1000);
  const settled = Math.round(readRss(server.pid));
  const hwm = Math.round(server.hwmMiB());
  await server.stop();
  process.stderr.write(`.`);
  return { rss, settled, hwm };
}

function readRss(pid: number): number {
  // The resident set now, in MiB (the sampler's peak includes the start itself).
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const m = /VmRSS:\s+(\d+)/.exec(status);
  return m ? Number(m[1]) / 1024 : 0;
}

const first: string[] = [];
const later: string[] = [];
for (let i = 0; i < RUNS; i++) {
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-idle-'));
  try {
    const a = await idleRss(dir);
    first.push(`${a.rss} MiB, ${a.settled} MiB after ${SETTLE_SEC} s (VmHWM ${a.hwm})`);
    const b = await idleRss(dir);
    later.push(`${b.rss} MiB, ${b.settled} MiB after ${SETTLE_SEC} s (VmHWM ${b.hwm})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
process.stdout.write(
  `\nidle 5 s after /readyz, and after ${SETTLE_SEC} s:\n` +
    `idle after the first start: ${first.join(', ')}\nidle after a later start: ${later.join(', ')}\n`,
);
