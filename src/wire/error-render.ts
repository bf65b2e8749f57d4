import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type CatalogEntry, errors } from '../shared/errors.js';
import { negotiate } from './negotiate.js';
import { toXml } from './xml.js';
import { errorXmlSchema } from './schemas.js';

export interface RenderOptions {
  production: boolean;
}

/** Turns anything thrown into a catalogued error (unknown failures become a 500). */
export function toAppError(err: unknown): { app: AppError; unexpected: boolean } {
  if (err instanceof AppError) return { app: err, unexpected: false };
  const e = err as FastifyError & { validation?: unknown; validationContext?: string };
  if (e && e.validation) {
    return { app: new AppError('invalidBody', e.message), unexpected: false };
  }
  switch (e?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { app: new AppError('payloadTooLarge'), unexpected: false };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { app: new AppError('unsupportedMediaType'), unexpected: false };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { app: new AppError('invalidBody', e.message), unexpected: false };
  }
  const status = typeof e?.statusCode === 'number' ? e.statusCode : 500;
  if (status >= 400 && status < 500) {
    const byStatus: Record<number, CatalogEntry> = {
      404: errors.routeNotFound,
      405: errors.methodNotAllowed,
      413: errors.payloadTooLarge,
      415: errors.unsupportedMediaType,
    };
    const entry = byStatus[status] ?? errors.invalidBody;
    return { app: new AppError(entry, e.message), unexpected: false };
  }
  return { app: new AppError('internal'), unexpected: true };
}

/** Renders an error in the POS v3 wire format, `{ErrorId, ErrorText}` in JSON or XML. */
export function sendPosError(
  request: FastifyRequest,
  reply: FastifyReply,
  err: unknown,
  options: RenderOptions,
): FastifyReply {
  const { app, unexpected } = toAppError(err);
  if (unexpected) request.log.error({ err }, 'request failed');
  reply.code(app.entry.status);
  const body: Record<string, unknown> = { ErrorId: app.entry.errorId, ErrorText: app.message };
  if (app.extra) Object.assign(body, app.extra);
  if (unexpected && !options.production && err instanceof Error) {
    body.ErrorMessage = err.message;
    body.StackTrace = err.stack ?? '';
  }
  const format = negotiate(request.headers.accept, request.headers['content-type']);
  if (format === 'xml') {
    return reply.type('application/xml; charset=utf-8').send(toXml(body, errorXmlSchema));
  }
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(body));
}

/** Renders an error in the format of the operator API, `{"error": {"code", "message", "details"}}`. */
export function sendApiError(
  request: FastifyRequest,
  reply: FastifyReply,
  err: unknown,
  options: RenderOptions,
): FastifyReply {
  const { app, unexpected } = toAppError(err);
  if (unexpected) request.log.error({ err }, 'request failed');
  reply.code(app.entry.status);
  const error: Record<string, unknown> = { code: app.entry.code, message: app.message };
  if (app.details) error.details = app.details;
  if (unexpected && !options.production && err instanceof Error) {
    error.details = { message: err.message };
  }
  return reply.type('application/json; charset=utf-8').send(JSON.stringify({ error }));
}

/**
 * The error handler and the not-found handler of one interface's scope (Fastify encapsulation):
 * each interface renders its own errors, whatever its URLs look like.
 */
export function registerErrorRendering(
  scope: FastifyInstance,
  render: typeof sendPosError,
  options: RenderOptions,
  { notFound = true }: { notFound?: boolean } = {},
): void {
  scope.setErrorHandler((err, request, reply) => render(request, reply, err, options));
  if (notFound) {
    scope.setNotFoundHandler((request, reply) =>
      render(request, reply, new AppError('routeNotFound'), options),
    );
  }
}
