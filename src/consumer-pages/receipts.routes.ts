import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { loadReceipt, loadReceiptPdf } from '../notifications/receipt-lookup.js';
import { languageOf } from '../receipts/receipt-text.js';
import { DOCUMENT_HEADERS } from '../wire/page-security.js';
import { renderNotFound } from './me-pages.js';
import { renderReceipt } from './receipt-page.js';

const Params = Type.Object({ id: Type.String({ maxLength: 200 }) });
const Query = Type.Object({ lang: Type.Optional(Type.String({ maxLength: 10 })) });

/**
 * The digital receipt (docs/decisions.md, "Notifications, receipts and the consumer portal"):
 * `/receipts/{id}` as a printable page and `/receipts/{id}/bill.pdf` when the till sent a BillPdf;
 * an unknown id is 404. Pages for people, not API operations: they are not in /openapi.json.
 */
export async function receiptRoutes(app: FastifyInstance): Promise<void> {
  const { receipts } = app.services;
  // A receipt linked a moment ago may not have reached the replica yet: then the leader answers.
  const leader = app.ctx.database.readsReplica ? { ...receipts, db: app.ctx.database.db } : null;
  const receiptOf = async (id: string) =>
    (await loadReceipt(receipts, id)) ?? (leader ? await loadReceipt(leader, id) : null);
  const pdfOf = async (id: string) =>
    (await loadReceiptPdf(receipts, id)) ?? (leader ? await loadReceiptPdf(leader, id) : null);
  app.get<{ Params: { id: string }; Querystring: { lang?: string } }>(
    '/receipts/:id',
    { schema: { hide: true, params: Params, querystring: Query } },
    async (request, reply) => {
      const view = await receiptOf(request.params.id);
      reply.header('cache-control', 'private, no-store').header('x-robots-tag', 'noindex');
      if (!view)
        return reply
          .code(404)
          .type('text/html; charset=utf-8')
          .send(renderNotFound(languageOf(request.query.lang)));
      const pdf = view.hasBillPdf ? `/receipts/${encodeURIComponent(request.params.id)}/bill.pdf` : null;
      const lang = request.query.lang ? languageOf(request.query.lang) : undefined;
      return reply.type('text/html; charset=utf-8').send(renderReceipt(view, pdf, lang));
    },
  );
  app.get<{ Params: { id: string } }>(
    '/receipts/:id/bill.pdf',
    { schema: { hide: true, params: Params } },
    async (request, reply) => {
      const pdf = await pdfOf(request.params.id);
      reply.header('cache-control', 'private, no-store');
      if (!pdf) return reply.code(404).type('text/html; charset=utf-8').send(renderNotFound('en'));
      // The till's document, not a page of ours: checked to be a PDF at the upload, downloaded rather
      // than shown in the receipt's origin, sandboxed should a browser show it anyway.
      return reply
        .type('application/pdf')
        .headers(DOCUMENT_HEADERS)
        .header('content-disposition', 'attachment; filename="bill.pdf"')
        .send(pdf);
    },
  );
}
