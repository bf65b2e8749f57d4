import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { toAppError } from '../wire/error-render.js';
import { languageOf } from '../receipts/receipt-text.js';
import { renderError } from './me-pages.js';

/** Errors of the pages for people are pages too, in the browser's language. */
export function htmlErrorHandler(
  err: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const { app, unexpected } = toAppError(err);
  if (unexpected) request.log.error({ err }, 'request failed');
  const lang = languageOf(String(request.headers['accept-language'] ?? '').split(',')[0]);
  return reply
    .code(app.entry.status)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(renderError(lang, app.message, app.entry.status));
}
