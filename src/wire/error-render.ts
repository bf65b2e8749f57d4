import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type CatalogEntry, errors } from '../shared/errors.js';
import { negotiate } from './negotiate.js';
import { toXml } from './xml.js';
import { errorXmlSchema } from './schemas.js';

export interface RenderOptions {
  production: boolean;
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
  return { app: new AppError('internal'), unexpected: true };
}

export function isPosRequest(request: FastifyRequest): boolean {
  return request.url.startsWith('/api/pos/');
}

/** Renders an error in the wire format of the API the request belongs to. */
export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  err: unknown,
  options: RenderOptions,
): FastifyReply {
  const { app, unexpected } = toAppError(err);
  if (unexpected) request.log.error({ err }, 'request failed');
  const status = app.entry.status;
  reply.code(status);
  if (isPosRequest(request)) {
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
    return reply
      .type('application/json; charset=utf-8')

      .send(JSON.stringify(body));
  }
  const error: Record<string, unknown> = { code: app.entry.code, message: app.message };
  if (app.details) error.details = app.details;
  if (unexpected && !options.production && err instanceof Error) {
    error.details = { message: err.message };
  }
  return reply
    .type('application/json; charset=utf-8')

    .send(JSON.stringify({ error }));
}
