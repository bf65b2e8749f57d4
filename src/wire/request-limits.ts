import type { Socket } from 'node:net';
import { Transform, type TransformCallback } from 'node:stream';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  FastifyServerOptions,
  RequestPayload,
  RouteOptions,
} from 'fastify';
import { Type } from 'typebox';
import type { Config } from '../config.js';
import { AppError } from '../shared/errors.js';

/**
 * Time limits and the connection cap (docs/security.md, "Limits"). Headers and idle kept-alive
 * connections are bounded by the HTTP server itself; bodies by the pace set here, per route: a body
 * within the general size limit must be complete REQUEST_TIMEOUT_MS after its headers, while a body
 * that may be larger (the sortiment bulk upload, up to 256 MiB) cannot promise a time and must
 * instead keep to BULK_MIN_BYTES_PER_SECOND on average once its head start has passed.
 */

/** How often the HTTP server looks for connections past their header deadline. */
const CONNECTION_CHECK_INTERVAL_MS = 1_000;
const RATE_CHECK_INTERVAL_MS = 1_000;

/** The Fastify options that bound time per connection. */
export function serverTimeOptions(config: Config): Pick<
  FastifyServerOptions,
  'keepAliveTimeout' | 'requestTimeout' | 'connectionTimeout'
> & {
  http: { connectionsCheckingInterval: number; headersTimeout: number; requestTimeout: number };
} {
  return {
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // Node's own request timeout is one value for every route; bodies are paced below instead.
    requestTimeout: 0,
    // No idle timeout: a long bulk upload is quiet while the database works on it.
    connectionTimeout: 0,
    http: {
      connectionsCheckingInterval: CONNECTION_CHECK_INTERVAL_MS,
      headersTimeout: config.headersTimeoutMs,
      // Also here: the server refuses a header time limit above its default request time limit.
      requestTimeout: 0,
    },
  };
}

/** What Fastify's options do not reach: the header deadline, the connection cap, closing. */
export function applyServerLimits(app: FastifyInstance, config: Config): void {
  app.server.headersTimeout = config.headersTimeoutMs;
  app.server.maxConnections = config.maxConnections;
  drainOnClose(app);
}

/** While the server closes, how often kept-alive connections that have fallen idle are closed. */
const IDLE_CLOSE_INTERVAL_MS = 50;

/**
 * Closing (SIGTERM, SIGINT): requests in flight finish, and no connection holds the close open.
 * - A connection that has sent nothing yet (browsers open them ahead of their requests) is cut by
 *   the header deadline while the server runs, but once the server closes Node.js stops checking
 *   that deadline, and the close would wait until the client gave up: it is closed at once. One
 *   that has sent a byte is left to finish its request.
 * - Node.js closes the kept-alive connections idle at the instant the close begins; a connection
 *   whose request was still in flight then stays open after its answer until its client or the
 *   keep-alive limit (72 s) ends it, past the 30 s a shutdown is given. Such connections are
 *   closed as they fall idle.
 * - A request that comes on a kept-alive connection meanwhile is served like any other, and its
 *   answer closes its connection (Fastify's `Connection: close`; app.ts keeps Fastify from
 *   answering it with a 503 of its own, outside the error catalog).
 */
function drainOnClose(app: FastifyInstance): void {
  const open = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.addHook('preClose', (done) => {
    for (const socket of open) if (socket.bytesRead === 0) socket.destroy();
    const idle = setInterval(() => app.server.closeIdleConnections(), IDLE_CLOSE_INTERVAL_MS);
    idle.unref();
    app.server.once('close', () => clearInterval(idle));
    done();
  });
}

/**
 * Passes a bulk body through while counting it; fails it with a catalogued 408 when its average
 * rate falls below the minimum after the head start.
 */
class RatedBody extends Transform {
  /** Read by Fastify's body reader when this stream stands in for the raw request. */
  receivedEncodedLength = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(bytesPerSecond: number, headStartMs: number, onTooSlow: () => void) {
    super();
    const startedMs = performance.now();
    this.timer = setInterval(() => {
      const countedMs = performance.now() - startedMs - headStartMs;
      if (countedMs > 0 && this.receivedEncodedLength < (bytesPerSecond * countedMs) / 1000) {
        clearInterval(this.timer);
        onTooSlow();
        this.destroy(new AppError('bodyTooSlow'));
      }
    }, RATE_CHECK_INTERVAL_MS);
    this.timer.unref();
    const stop = (): void => clearInterval(this.timer);
    this.once('end', stop);
    this.once('close', stop);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.receivedEncodedLength += chunk.length;
    callback(null, chunk);
  }
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Every route that takes a body can answer 408; the API reference says so. */
function documentTimeout(route: RouteOptions): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const response = route.schema?.response as Record<number, unknown> | undefined;
  if (!response || response[408] !== undefined || !methods.some((m) => BODY_METHODS.has(m))) return;
  const pos = route.url.startsWith('/api/pos/');
  response[408] = Type.Ref(pos ? 'PosError' : 'ApiError', {
    description: pos
      ? 'The body did not arrive in time (1021), or a bulk upload arrived below its minimum rate (1022).'
      : 'The body did not arrive in time (request_timeout).',
  });
}

/** Registers the body pace; before any plugin that reads or decompresses bodies. */
export function registerBodyPace(app: FastifyInstance, config: Config): void {
  app.addHook('onRoute', documentTimeout);
  // A callback hook: most bodies need nothing from it, and an async hook costs a promise per request.
  app.addHook('preParsing', (request, reply, payload, done) => {
    done(null, pacedBody(request, reply, payload, config));
  });
}

/** The body as the route's pace lets it be read: as it is, or watched by a deadline or a rate. */
function pacedBody(
  request: FastifyRequest,
  reply: FastifyReply,
  payload: RequestPayload,
  config: Config,
): RequestPayload {
  const raw = request.raw;
  // Most bodies came in the packet of their headers: nothing left to wait for, nothing to watch.
  if (raw.complete) return payload;
  const length = request.headers['content-length'];
  if (request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) {
    return payload;
  }
  // The rest of the body is not waited for: the answer closes the connection.
  const closeAfterAnswer = (): void => void reply.header('connection', 'close');
  if ((request.routeOptions.bodyLimit ?? 0) > config.bodyLimitBytes) {
    const rated = new RatedBody(config.bulkMinBytesPerSecond, config.bulkHeadStartMs, closeAfterAnswer);
    payload.on('error', (err) => rated.destroy(err));
    return payload.pipe(rated);
  }
  // Every other body only needs a deadline: a timer, and no stream in between on the hot path.
  const timer = setTimeout(() => {
    if (raw.complete) return;
    closeAfterAnswer();
    // The body reader listens for errors on the request and answers with this one (408).
    if (raw.listenerCount('error') > 0) raw.emit('error', new AppError('requestTimeout'));
    else raw.destroy();
  }, config.requestTimeoutMs);
  timer.unref();
  const stop = (): void => clearTimeout(timer);
  raw.once('end', stop);
  raw.once('close', stop);
  return payload;
}
