import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { BULK_MAX_ARTICLES, type BulkSource, bulkUpload } from '../sortiment/bulk-upload.js';
import { findSortiment } from '../sortiment/sortiment.store.js';
import { BULK_XML_LIMITS, jsonSource, xmlSource } from '../wire/bulk-body.js';
import { registerBulkSlots, runWithSlot } from '../wire/bulk-slots-hook.js';
import { registerItemwiseParsers } from '../wire/content-parsers.js';
import { type Schema, normaliseValue } from '../wire/normalise.js';
import { answer } from '../wire/openapi.js';
import { posErrors } from '../wire/schemas.js';
import { AUTH_REFUSALS, callerUnit } from './route-auth.js';
import {
  ArticleSchema,
  BulkBodySchema,
  BulkResultSchema,
  GroupSchema,
  SortimentParams,
} from './sortiment.schemas.js';

/** An empty body: no groups, no articles. */
const NO_ITEMS: BulkSource = { groups: undefined, articleCount: 0, article: () => undefined };

/**
 * The sortiment bulk upload, in a scope of its own: its bodies are read item by item, and how
 * many run at once is limited (docs/decisions.md, "Sortiment"): a slot is taken after
 * authentication and before the body is read, and given back when the upload has ended or its
 * client has gone away before the upload began.
 */
export const sortimentBulkRoutes: FastifyPluginAsync = async (scope) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;
  registerItemwiseParsers(app, BULK_XML_LIMITS);
  registerBulkSlots(app, app.services.sortiment.bulkSlots, (request) => {
    const { unit } = callerUnit(request);
    return `${unit.devKeyId}:${unit.unitId}`;
  });

  app.post(
    '/sortiments/:serviceSortimentId/bulkUpload',
    {
      config: { auth: 'activeUnit' },
      bodyLimit: app.ctx.config.bulkBodyLimitBytes,
      schema: {
        tags: ['POS: sortiments'],
        summary: 'Bulk upload of groups and articles (all or nothing)',
        operationId: 'bulkUploadSortiment',
        description:
          'changedArticlesOnly=false: the body is the whole sortiment; articles missing from it are deleted, and ' +
          'Groups, when given, replace the stored groups. true: upsert only. Any invalid item answers 400 / 1000 ' +
          'with Errors listing every invalid item, and nothing changes. Unchanged articles are counted, not ' +
          'rewritten. The body may be gzip-compressed; its limit counts the decompressed bytes. At most ' +
          `${BULK_MAX_ARTICLES} articles per upload; in XML at most ${BULK_XML_LIMITS.maxXmlElements} elements.`,
        params: SortimentParams,
        querystring: Type.Object({
          changedArticlesOnly: Type.Boolean({ description: 'Required: false replaces, true upserts.' }),
        }),
        body: BulkBodySchema,
        response: {
          200: answer('The sortiment was changed as a whole: the counts of articles.', BulkResultSchema),
          ...posErrors({
            400:
              'Body or query invalid; Errors lists the first 100 invalid items with PLU, ErrorId and ErrorText, ' +
              'ErrorsNotListed counts the rest (1000); sortiment unknown (12001); a list longer than allowed (1030); ' +
              `more than ${BULK_MAX_ARTICLES} articles (1031).`,
            ...AUTH_REFUSALS.activeUnit,
            413: 'Body too large after decompression (1008).',
            415: 'Content-Type or Content-Encoding not supported (1007, 1009).',
            429:
              'The terminal runs as many bulk uploads as BULK_UPLOADS_PER_TERMINAL allows (1050); retry after ' +
              'Retry-After seconds. Nothing was read or changed.',
            503:
              'The service runs as many bulk uploads as BULK_UPLOADS_PER_PROCESS allows (1051); retry after ' +
              'Retry-After seconds. Nothing was read or changed.',
          }),
        },
      },
    },
    (request) =>
      runWithSlot(request, async () => {
        const { unit } = callerUnit(request);
        const s = await findSortiment(db, unit.merchantId, request.params.serviceSortimentId);
        const { jsonBytes, xmlItems } = request;
        request.jsonBytes = null;
        request.xmlItems = null;
        const xml = xmlItems !== null;
        const source = jsonBytes ? jsonSource(jsonBytes) : xmlItems ? xmlSource(xmlItems) : NO_ITEMS;
        const started = Date.now();
        return bulkUpload(db, unit.merchantId, s.id, source, {
          changedArticlesOnly: request.query.changedArticlesOnly,
          currency: unit.currency,
          batchSize: app.ctx.config.bulkBatchSize,
          // JSON items are read with case-insensitive names as they are; XML needs its shapes mapped.
          normaliseArticle: xml
            ? (item) => normaliseValue(item, ArticleSchema as Schema, true)
            : (item) => item,
          normaliseGroup: xml ? (item) => normaliseValue(item, GroupSchema as Schema, true) : (item) => item,
          // Each written chunk is noted at debug level only (fifty lines for 100,000 articles).
          onPhase: (phase, detail) =>
            request.log[phase === 'progress' ? 'debug' : 'info'](
              { sortimentId: s.id, phase, ms: Date.now() - started, ...detail },
              `sortiment bulk upload: ${phase}`,
            ),
        });
      }),
  );
};
