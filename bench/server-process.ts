import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * The server as a child process (`node --import tsx src/server.ts`), for the benchmark and the
 * crash test: start, wait until ready, watch its memory, kill it hard.
 */

export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789';

export interface ServerProcess {
  readonly url: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Lines the server wrote to stdout (pino JSON). */
  readonly lines: string[];
  /** Resolves when a stdout line contains `text`. */
  waitForLine(text: string, timeoutMs?: number): Promise<string>;
  /** Peak resident set size so far, in MiB (VmHWM), or null where /proc is missing. */
  peakRssMb(): number | null;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolvePort(port));
    });
    srv.on('error', reject);
  });
}

function statusField(pid: number, field: string): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
    return m?.[1] ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export async function startServer(
  env: Record<string, string>,
  nodeArgs: string[] = [],
  /** `dist`: the compiled build, as an operator runs it (`npm run build` first); `src`: through tsx. */
  entry: 'src' | 'dist' = 'src',
): Promise<ServerProcess> {
  const port = await freePort();
  const script =
    entry === 'dist' ? [resolve('dist/server.js')] : ['--import', 'tsx', resolve('src/server.ts')];
  const child = spawn(process.execPath, [...nodeArgs, ...script], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
      AUTO_ACTIVATE_UNITS: 'true',
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error('server did not start');
  const lines: string[] = [];
  const waiters: { text: string; resolve: (line: string) => void }[] = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let nl = buffer.indexOf('\n');
    while (nl >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      lines.push(line);
      for (let i = waiters.length - 1; i >= 0; i--) {
        const w = waiters[i];
        if (w && line.includes(w.text)) {
          waiters.splice(i, 1);
          w.resolve(line);
        }
      }
      nl = buffer.indexOf('\n');
    }
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let peakPolled = 0;
  const poll = setInterval(() => {
    const rss = statusField(pid, 'VmRSS');
    if (rss !== null && rss > peakPolled) peakPolled = rss;
  }, 50);
  poll.unref();
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited: ${stderr}`);
    try {
      const res = await fetch(`${url}/readyz`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`server not ready: ${stderr}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid,
    child,
    lines,
    waitForLine: (text, timeoutMs = 120_000) =>
      new Promise((resolveLine, reject) => {
        const found = lines.find((l) => l.includes(text));
        if (found) return resolveLine(found);
        const timer = setTimeout(() => reject(new Error(`no line with "${text}"`)), timeoutMs);
        waiters.push({
          text,
          resolve: (line) => {
            clearTimeout(timer);
            resolveLine(line);
          },
        });
      }),
    peakRssMb: () => {
      const hwm = statusField(pid, 'VmHWM');
      return hwm === null ? peakPolled || null : Math.max(hwm, peakPolled);
    },
    kill: async (signal = 'SIGKILL') => {
      clearInterval(poll);
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}

export interface HttpTerminal {
  devKey: string;
  trackingUnitId: string;
  checksumSecret: string;
  serviceUserName: string;
}

async function json<T>(res: Response): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.status}: ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

/** A merchant with an outlet and an (auto-activated) terminal, set up over HTTP. */
export async function setupHttpTerminal(url: string, serviceUserName: string): Promise<HttpTerminal> {
  const admin = { authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const { devKey } = await json<{ devKey: string }>(
    await fetch(`${url}/api/admin/v1/devKeys`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'bench' }),
    }),
  );
  await json(
    await fetch(`${url}/api/admin/v1/merchants`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        serviceUserName,
        displayName: serviceUserName,
        currency: 'EUR',
        timeZone: 'Europe/Berlin',
      }),
    }),
  );
  const { brandId } = await json<{ brandId: number }>(
    await fetch(`${url}/api/admin/v1/merchants/${serviceUserName}/brands`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Brand' }),
    }),
  );
  const pos = { devkey: devKey, accept: 'application/json', 'content-type': 'application/json' };
  const { Id: outletId } = await json<{ Id: number }>(
    await fetch(`${url}/api/pos/v3/merchants/${serviceUserName}/outlets?brandId=${brandId}`, {
      method: 'POST',
      headers: pos,
      body: JSON.stringify({ Name: 'Outlet' }),
    }),
  );
  const unit = await json<{ trackingUnitId: string; checksumSecret: string }>(
    await fetch(
      `${url}/api/pos/v3/trackingUnits?serviceUserName=${serviceUserName}&outletId=${outletId}&instanceName=bench`,
      { headers: { devkey: devKey, accept: 'application/json' } },
    ),
  );
  return { devKey, serviceUserName, ...unit };
}

export function posHeaders(t: HttpTerminal): Record<string, string> {
  return {
    devkey: t.devKey,
    trackingunitid: t.trackingUnitId,
    accept: 'application/json',
    'content-type': 'application/json',
  };
}

export async function lookupSortimentHttp(url: string, t: HttpTerminal, identifier: string): Promise<string> {
  const res = await fetch(`${url}/api/pos/v3/sortiments?thirdPartySortimentIdentifier=${identifier}`, {
    headers: posHeaders(t),
  });
  return (await json<{ serviceSortimentId: string }>(res)).serviceSortimentId;
}

export async function bulkUploadHttp(
  url: string,
  t: HttpTerminal,
  sortimentId: string,
  body: string | Buffer,
  options: { changedArticlesOnly: boolean; gzip?: boolean },
): Promise<{ status: number; body: string; ms: number }> {
  const headers = posHeaders(t);
  let payload: string | Buffer = body;
  if (options.gzip) {
    payload = Buffer.isBuffer(body) ? body : gzipSync(body);
    headers['content-encoding'] = 'gzip';
  }
  const started = performance.now();
  const res = await fetch(
    `${url}/api/pos/v3/sortiments/${sortimentId}/bulkUpload?changedArticlesOnly=${options.changedArticlesOnly}`,
    { method: 'POST', headers, body: payload },
  );
  const text = await res.text();
  return { status: res.status, body: text, ms: performance.now() - started };
}
