import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type ErrorName } from '../shared/errors.js';
import { type RenderOptions, errorPayload, sendError } from './error-render.js';
import { negotiate } from './negotiate.js';
import { REQUEST_ID_HEADER, newRequestId } from './request-id.js';

/**
 * Errors raised before a request reaches a route, answered in the service's error format like any
 * other (docs/errors.md): a URL Fastify cannot decode or route, and what the HTTP parser refuses.
 */

/** Fastify's `frameworkErrors`: the request object exists, so the usual renderer answers. */
export function frameworkErrorHandler(options: RenderOptions) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const name: ErrorName =
      error.code === 'FST_ERR_BAD_URL'
        ? 'badUrl'
        : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? 'uriTooLong'
          : error.code === 'FST_ERR_ASYNC_CONSTRAINT'
            ? 'internal'
            : 'badRequest';
    sendError(request, reply, name === 'internal' ? error : new AppError(name), options);
  };
}

function catalogued(code: string | undefined): ErrorName {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return 'headersTooLarge';
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return 'headersTimeout';
    default:
      return 'badRequest';
  }
}

/** The request line and headers as far as they arrived, to answer in the right API's format. */
function sniff(rawPacket: unknown): { pos: boolean; accept?: string; contentType?: string } {
  if (!Buffer.isBuffer(rawPacket)) return { pos: false };
  const head = rawPacket.subarray(0, 16 * 1024).toString('latin1');
  const pos = /^[A-Z]+ \/api\/pos\//.test(head);
  const header = (name: string): string | undefined =>
    new RegExp(`\\r\\n${name}:[ \\t]*([^\\r\\n]*)`, 'i').exec(head)?.[1];
  return { pos, accept: header('accept'), contentType: header('content-type') };
}

/** The HTTP server's `clientError`: no request object, so the answer is written to the socket. */
export function clientErrorHandler(
  err: NodeJS.ErrnoException & { rawPacket?: unknown },
  socket: Socket,
): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const app = new AppError(catalogued(err.code));
  if (socket.writable) {
    const seen = sniff(err.rawPacket);
    const format = seen.pos ? negotiate(seen.accept, seen.contentType) : 'json';
    // No request object: the request id is made here (an X-Request-Id sent is not trusted unread).
    const requestId = newRequestId();
    const { contentType, text } = errorPayload(
      app,
      { pos: seen.pos, format },
      null,
      seen.pos ? null : requestId,
    );
    const status = app.entry.status;
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n` +
        `Content-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `${REQUEST_ID_HEADER}: ${requestId}\r\n` +
        `Connection: close\r\n\r\n${text}`,
    );
  }
  // A client that keeps sending after the answer does not keep the connection.
  setTimeout(() => socket.destroy(), 1_000).unref();
}
