import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type CatalogEntry, errors } from '../shared/errors.js';
import { isDatabaseUnavailable } from '../shared/database-unavailable.js';
import { negotiate } from './negotiate.js';
import { toXml } from './xml.js';
import { errorXmlSchema } from './schemas.js';

export interface RenderOptions {
  /** EXPOSE_ERROR_DETAILS: a 500 carries the failure's message and stack (development only). */
  exposeErrorDetails: boolean;
}

/**
 * Schema keywords that refuse a value of the right type for breaking a bound (Amount > 0, a name
 * too long): the body was read, so the text must not claim a syntax error (docs/decisions.md).
 */
const RULE_KEYWORDS = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'uniqueItems',
]);

function isRuleKeyword(v: unknown): boolean {
  return (
    typeof v === 'object' && v !== null && RULE_KEYWORDS.has(String((v as { keyword?: unknown }).keyword))
  );
}

/** Turns anything thrown into a catalogued error (unknown failures become a 500). */
export function toAppError(err: unknown): { app: AppError; unexpected: boolean } {
  if (err instanceof AppError) return { app: err, unexpected: false };
  const e = err as FastifyError & { validation?: unknown; validationContext?: string };
  if (e && e.validation) {
    const refused = Array.isArray(e.validation) && e.validation.every((v) => isRuleKeyword(v));
    return { app: new AppError(refused ? 'refused' : 'invalidBody', e.message), unexpected: false };
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
  if (isDatabaseUnavailable(err)) {
    return {
      app: new AppError('unavailable', 'The database is not reachable just now; retry shortly.'),
      unexpected: false,
    };
  }
  return { app: new AppError('internal'), unexpected: true };
}

/** Framework refusals before routing have no scope yet: their format follows the URL. */
export function isPosRequest(request: FastifyRequest): boolean {
  return request.url.startsWith('/api/pos/');
}

/** The body of an error answer, in the wire format of the API it belongs to. */
export function errorPayload(
  app: AppError,
  where: { pos: boolean; format: 'json' | 'xml' },
  developerDetail: Error | null,
): { contentType: string; text: string } {
  if (where.pos) {
    const body: Record<string, unknown> = { ErrorId: app.entry.errorId, ErrorText: app.message };
    if (app.extra) Object.assign(body, app.extra);
    if (developerDetail) {
      body.ErrorMessage = developerDetail.message;
      body.StackTrace = developerDetail.stack ?? '';
    }
    if (where.format === 'xml') {
      return { contentType: 'application/xml; charset=utf-8', text: toXml(body, errorXmlSchema) };
    }
    return { contentType: 'application/json; charset=utf-8', text: JSON.stringify(body) };
  }
  const error: Record<string, unknown> = { code: app.entry.code, message: app.message };
  if (app.details) error.details = app.details;
  if (developerDetail) error.details = { message: developerDetail.message };
  return { contentType: 'application/json; charset=utf-8', text: JSON.stringify({ error }) };
}

function render(
  request: FastifyRequest,
  reply: FastifyReply,
  err: unknown,
  options: RenderOptions,
  pos: boolean,
): FastifyReply {
  const { app, unexpected } = toAppError(err);
  if (unexpected) request.log.error({ err }, 'request failed');
  reply.code(app.entry.status);
  // A 503 is worth repeating: say when (a failover takes seconds), unless the refusal said already.
  if (app.entry.status === 503 && !reply.hasHeader('retry-after')) reply.header('retry-after', '1');
  // A 500's own text may quote the database (values, table names): only on request.
  const detail = unexpected && options.exposeErrorDetails && err instanceof Error ? err : null;
  const format = pos ? negotiate(request.headers.accept, request.headers['content-type']) : 'json';
  const { contentType, text } = errorPayload(app, { pos, format }, detail);
  return reply.type(contentType).send(text);
}

/** Renders an error in the POS v3 wire format, `{ErrorId, ErrorText}` in JSON or XML. */
export function sendPosError(
  request: FastifyRequest,
  reply: FastifyReply,
  err: unknown,
  options: RenderOptions,
): FastifyReply {
  return render(request, reply, err, options, true);
}

/** Renders an error in the format of the operator API, `{"error": {"code", "message", "details"}}`. */
export function sendApiError(
  request: FastifyRequest,
  reply: FastifyReply,
  err: unknown,
  options: RenderOptions,
): FastifyReply {
  return render(request, reply, err, options, false);
}

/** Renders an error in the format its URL names (framework refusals before routing). */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  err: unknown,
  options: RenderOptions,
): FastifyReply {
  return render(request, reply, err, options, isPosRequest(request));
}

/**
 * The error handler and the not-found handler of one interface's scope (Fastify encapsulation):
 * each interface renders its own errors, whatever its URLs look like.
 */
export function registerErrorRendering(
  scope: FastifyInstance,
  renderer: typeof sendPosError,
  options: RenderOptions,
  { notFound = true }: { notFound?: boolean } = {},
): void {
  scope.setErrorHandler((err, request, reply) => renderer(request, reply, err, options));
  if (notFound) {
    scope.setNotFoundHandler((request, reply) =>
      renderer(request, reply, new AppError('routeNotFound'), options),
    );
  }
}
