import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, type CatalogEntry, errors } from '../shared/errors.js';
import {
  isDatabaseOutOfRoom,
  isDatabaseSilent,
  isDatabaseUnavailable,
  isRowLockedTooLong,
  isStatementTimedOut,
  isTransactionConflict,
} from '../shared/database-unavailable.js';
import { MAIL_ADDRESS_PROBLEM, isMailAddressPattern } from './documents/mail-address.schemas.js';
import { negotiate } from './negotiate.js';
import { REQUEST_ID_HEADER } from './request-id.js';
import { toXml } from './xml.js';
import { errorXmlSchema } from './schemas.js';

export interface RenderOptions {
  /** EXPOSE_ERROR_DETAILS: a 500 carries the failure's message and stack (development only). */
  exposeErrorDetails: boolean;
}

/** What ajv reports of one failed check. */
interface ValidationIssue {
  readonly keyword: string;
  readonly instancePath: string;
  readonly schemaPath: string;
  readonly params: Record<string, unknown>;
  readonly message?: string;
}

/** One problem of a request: where (`in` and a JSON pointer) and what. */
export interface FieldProblem {
  readonly in: string;
  readonly pointer: string;
  readonly message: string;
}

const escapeSegment = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * Every problem ajv found (it runs with allErrors), one per field and check: the pointer names the
 * field itself, a missing or unknown property included; the alternatives of a nullable field or a
 * union are one problem ("must be integer or null"), not one per branch.
 */
export function validationProblems(issues: readonly ValidationIssue[], context: string): FieldProblem[] {
  const unions = issues.filter((i) => i.keyword === 'anyOf' || i.keyword === 'oneOf');
  const inUnion = (i: ValidationIssue) =>
    unions.some((u) => u !== i && i.schemaPath.startsWith(`${u.schemaPath}/`));
  const out: FieldProblem[] = [];
  const seen = new Set<string>();
  for (const issue of issues) {
    if (inUnion(issue)) continue;
    let pointer = issue.instancePath;
    let message = issue.message ?? issue.keyword;
    const missing = issue.params.missingProperty;
    const extra = issue.params.additionalProperty;
    if (issue.keyword === 'required' && typeof missing === 'string') {
      pointer = `${pointer}/${escapeSegment(missing)}`;
      message = 'is required';
    } else if (issue.keyword === 'additionalProperties' && typeof extra === 'string') {
      pointer = `${pointer}/${escapeSegment(extra)}`;
      message = 'is not a known field';
    } else if (issue.keyword === 'pattern' && isMailAddressPattern(issue.params.pattern)) {
      message = MAIL_ADDRESS_PROBLEM;
    } else if (issue.keyword === 'anyOf' || issue.keyword === 'oneOf') {
      const branches = issues.filter(
        (b) => b.schemaPath.startsWith(`${issue.schemaPath}/`) && b.instancePath === issue.instancePath,
      );
      const types = branches.flatMap((b) => (b.keyword === 'type' ? [String(b.params.type)] : []));
      const consts = branches.flatMap((b) =>
        b.keyword === 'const' ? [JSON.stringify(b.params.allowedValue)] : [],
      );
      if (branches.length > 0 && types.length + consts.length === branches.length) {
        message = `must be ${[...consts, ...types].join(' or ')}`;
      } else {
        message = 'must match one of the allowed forms';
      }
    }
    const key = `${pointer} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ in: context, pointer, message });
  }
  return out.slice(0, 100);
}

function problemText(p: FieldProblem): string {
  // As the validator has always worded it (`body/Positions/0/Amount must be > 0`): tills may read it.
  return `${p.in}${p.pointer} ${p.message}`;
}

/**
 * Turns anything thrown into a catalogued error (unknown failures become a 500); `unexpected`: a
 * failure the operator has to see, logged as an error.
 */
export function toAppError(err: unknown): { app: AppError; unexpected: boolean } {
  if (err instanceof AppError) return { app: err, unexpected: false };
  const e = err as FastifyError & { validation?: unknown; validationContext?: string };
  if (e && e.validation) {
    // The bytes parsed: the text lists every problem, never a syntax error (docs/decisions.md).
    const problems = Array.isArray(e.validation)
      ? validationProblems(e.validation as ValidationIssue[], e.validationContext ?? 'body')
      : [];
    if (problems.length === 0) return { app: new AppError('refused', e.message), unexpected: false };
    return {
      app: new AppError('refused', problems.map(problemText).join('; '), {
        details: { problems },
      }),
      unexpected: false,
    };
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
  if (isDatabaseSilent(err)) {
    // No connection opened, or no answer, within the limit: the database or the network to it is
    // silent, not a failover that refuses at once. Logged: a network that drops everything is the
    // operator's to look at (docs/decisions.md, "A database that stops answering").
    return {
      app: new AppError('unavailable', 'The database did not answer in time; retry shortly.'),
      unexpected: true,
    };
  }
  if (isDatabaseUnavailable(err)) {
    return {
      app: new AppError('unavailable', 'The database is not reachable just now; retry shortly.'),
      unexpected: false,
    };
  }
  if (isDatabaseOutOfRoom(err)) {
    // Nothing was written; it lasts until the operator makes room, so it is logged as a failure.
    return {
      app: new AppError('unavailable', 'The database cannot take writes just now.'),
      unexpected: true,
    };
  }
  if (isRowLockedTooLong(err)) {
    // Another session held a row this request needs: nothing was written, the request may repeat.
    return {
      app: new AppError(
        'unavailable',
        'A balance or record this request needs is held by another session just now.',
      ),
      unexpected: false,
    };
  }
  if (isStatementTimedOut(err)) {
    // Past the statement's limit (a row held elsewhere, the database overloaded): undone, and
    // logged, for a limit reached is the operator's to look at.
    return {
      app: new AppError(
        'unavailable',
        'The database took longer than its limit for this request; retry shortly.',
      ),
      unexpected: true,
    };
  }
  if (isTransactionConflict(err)) {
    // Undone for a conflict with another transaction: the request may repeat at once. Logged, for a
    // deadlock is a lock order to look at.
    return {
      app: new AppError(
        'unavailable',
        'Another request changed the same records at the same moment; nothing was written, repeat the request.',
      ),
      unexpected: true,
    };
  }
  return { app: new AppError('internal'), unexpected: true };
}

/** Framework refusals before routing have no scope yet: their format follows the URL. */
export function isPosRequest(request: FastifyRequest): boolean {
  return request.url.startsWith('/api/pos/');
}

/**
 * The body of an error answer, in the wire format of the API it belongs to. JSON API errors name
 * the request's id when there is one; POS errors keep their documented `{ErrorId, ErrorText}`.
 */
export function errorPayload(
  app: AppError,
  where: { pos: boolean; format: 'json' | 'xml' },
  developerDetail: Error | null,
  requestId: string | null = null,
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
  if (requestId !== null) error.requestId = requestId;
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
  // Every 429 says when to try again: the refusal's own wait, else a minute.
  if (app.entry.status === 429 && !reply.hasHeader('retry-after')) {
    const wait = app.details?.retryAfterSeconds;
    reply.header('retry-after', String(typeof wait === 'number' && wait >= 0 ? wait : 60));
  }
  // Also for refusals before any hook ran (a URL Fastify cannot route or decode).
  reply.header(REQUEST_ID_HEADER, request.id);
  // A 500's own text may quote the database (values, table names): only on request.
  const detail = unexpected && options.exposeErrorDetails && err instanceof Error ? err : null;
  const format = pos ? negotiate(request.headers.accept, request.headers['content-type']) : 'json';
  const { contentType, text } = errorPayload(app, { pos, format }, detail, request.id);
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
