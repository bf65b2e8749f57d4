import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { toAppError } from '../wire/error-render.js';
import { languageOf } from '../receipts/receipt-text.js';
import { renderBadLink, renderError } from './me-pages.js';

/**
 * Errors of the pages for people are pages too, in the browser's language; a page's link refused
 * (400 on a read) says so in the reader's words (docs/decisions.md, "Links edited by hand").
 */
export function htmlErrorHandler(
  err: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const { app, unexpected } = toAppError(err);
  if (unexpected) request.log.error({ err }, 'request failed');
  const lang = languageOf(String(request.headers['accept-language'] ?? '').split(',')[0]);
  // A page read (GET) has nothing but its link to refuse: the link was edited or cut.
  const badLink = app.entry.status === 400 && (request.method === 'GET' || request.method === 'HEAD');
  return reply
    .code(app.entry.status)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(badLink ? renderBadLink(lang) : renderError(lang, app.message, app.entry.status));
}
