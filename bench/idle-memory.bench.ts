import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess } from './lib/server.js';

/**
 * Idle memory of the compiled server on the embedded database (docs/performance.md, "Start-up time
 * and the embedded database's memory"): the resident set 5 s after /readyz answered, on a first
 * start (a new DATA_DIR: initdb and every migration) and on a later start of the same directory.
 *
 *   npx tsx bench/idle-memory.bench.ts      (RUNS=2; run `npm run build` first)
 */

const RUNS = Number(process.env.RUNS ?? 2);

async function idleRss(dataDir: string): Promise<{ rss: number; hwm: number }> {
  const server = await startProcess(['dist/server.js'], { DATA_DIR: dataDir });
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  const rss = Math.round(readRss(server.pid));
  const hwm = Math.round(server.hwmMiB());
  await server.stop();
  return { rss, hwm };
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
    first.push(`${a.rss} MiB (VmHWM ${a.hwm})`);
    const b = await idleRss(dir);
    later.push(`${b.rss} MiB (VmHWM ${b.hwm})`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
process.stdout.write(
  `idle after the first start: ${first.join(', ')}\nidle after a later start: ${later.join(', ')}\n`,
);
