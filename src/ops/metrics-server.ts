import { createHash, timingSafeEqual } from 'node:crypto';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import type { Config } from '../config.js';
import { AppError } from '../shared/errors.js';
import { errorPayload } from '../wire/error-render.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../wire/request-id.js';

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** True when no token is set, or the header carries it (`Bearer <token>`), compared in constant time. */
export function metricsTokenAccepted(token: string | null, authorization: string | undefined): boolean {
  if (token === null) return true;
  const m = /^Bearer\s+(.+)$/i.exec((authorization ?? '').trim());
  if (!m?.[1]) return false;
  return timingSafeEqual(digest(m[1].trim()), digest(token));
}

export interface MetricsServer {
  readonly port: number;
  close(): Promise<void>;
}

/**
 * /metrics on a port of its own (METRICS_PORT), so that it can stay off the network the API is
 * published on. It answers GET /metrics and nothing else, in the operator API's error format.
 */
export async function startMetricsServer(registry: Registry, config: Config): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const requestId = requestIdOf(req);
    const answer = (status: number, contentType: string, text: string): void => {
      res.writeHead(status, {
        'content-type': contentType,
        'content-length': Buffer.byteLength(text),
        [REQUEST_ID_HEADER]: requestId,
      });
      res.end(text);
    };
    const fail = (error: AppError): void => {
      const { contentType, text } = errorPayload(error, { pos: false, format: 'json' }, null, requestId);
      answer(error.entry.status, contentType, text);
    };
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/metrics') return fail(new AppError('routeNotFound'));
    if (req.method !== 'GET' && req.method !== 'HEAD') return fail(new AppError('methodNotAllowed'));
    if (!metricsTokenAccepted(config.metricsToken, req.headers.authorization)) {
      return fail(new AppError('unauthorized'));
    }
    registry.metrics().then(
      (text) => answer(200, registry.contentType, text),
      () => fail(new AppError('internal')),
    );
  });
  server.headersTimeout = config.headersTimeoutMs;
  server.requestTimeout = Math.max(config.requestTimeoutMs, config.headersTimeoutMs);
  server.keepAliveTimeout = config.keepAliveTimeoutMs;
  server.maxConnections = 64;
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(config.metricsPort ?? 0, config.metricsHost, () => resolveListen());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolveClose) => {
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
