import { request } from 'node:http';
import { resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { BENCH_ADMIN_TOKEN, type RunningServer, startProcess } from './lib/server.js';

/**
 * The service as a child process for the sortiment benchmark and the crash test (start, watch its
 * memory and its log lines, kill it hard), and the HTTP calls both make.
 */

/**
 * The service with its log lines kept (at info level) and new terminals active at once.
 * `dist`: the compiled build, as an operator runs it (`npm run build` first); `src`: through tsx.
 */
export function startServer(
  env: Record<string, string>,
  nodeArgs: string[] = [],
  entry: 'src' | 'dist' = 'src',
): Promise<RunningServer> {
  const script =
    entry === 'dist' ? [resolve('dist/server.js')] : ['--import', 'tsx', resolve('src/server.ts')];
  return startProcess(
    [...nodeArgs, ...script],
    { AUTO_ACTIVATE_UNITS: 'true', LOG_LEVEL: 'info', ...env },
    { captureLines: true },
  );
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

/**
 * One bulk upload, timed from the request's first byte to the answer's last. The body goes out as
 * bytes encoded before the clock starts, over `node:http`, as a till sends a file: through `fetch`
 * the benchmark's own process spent some 0.7 s of CPU per 81 MB body, on the same two cores as the
 * server it measures (docs/performance.md, "The measuring client's own CPU taken out of the
 * sortiment's figures").
 */
export async function bulkUploadHttp(
  url: string,
  t: HttpTerminal,
  sortimentId: string,
  body: string | Buffer,
  options: { changedArticlesOnly: boolean; gzip?: boolean; xml?: boolean },
): Promise<{ status: number; body: string; ms: number }> {
  const headers = posHeaders(t);
  if (options.xml) headers['content-type'] = 'application/xml';
  // With gzip, bytes given are sent as they are (compressed already), a text is compressed here.
  const payload = Buffer.isBuffer(body) ? body : options.gzip ? gzipSync(body) : Buffer.from(body);
  if (options.gzip) headers['content-encoding'] = 'gzip';
  headers['content-length'] = String(payload.length);
  const target = new URL(
    `${url}/api/pos/v3/sortiments/${sortimentId}/bulkUpload?changedArticlesOnly=${options.changedArticlesOnly}`,
  );
  const started = performance.now();
  const answer = await new Promise<{ status: number; body: string }>((done, fail) => {
    const req = request(target, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        done({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
      );
      res.on('error', fail);
    });
    req.on('error', fail);
    req.end(payload);
  });
  return { ...answer, ms: performance.now() - started };
}
