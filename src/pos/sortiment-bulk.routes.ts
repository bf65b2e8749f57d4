import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../shared/errors.js';
import { BULK_MAX_ARTICLES, type BulkSource, arraySource, bulkUpload } from '../sortiment/bulk-upload.js';
import { findSortiment } from '../sortiment/sortiment.store.js';
import { registerItemwiseParsers } from '../wire/content-parsers.js';
import { scanJsonItems } from '../wire/json-items.js';
import { type ParseLimits, REQUEST_LIMITS } from '../wire/parse-limits.js';
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

/**
 * The bulk upload in XML: its article list may be as long as the upload allows, its document at
 * most 2,000,000 elements (about 100,000 articles of 20 elements; larger sortiments go as JSON,
 * which is read one article at a time).
 */
const BULK_XML_LIMITS: ParseLimits = { maxXmlElements: 2_000_000, maxListItems: BULK_MAX_ARTICLES };

/** A JSON body's items, scanned from its bytes and read one article at a time. */
function jsonSource(raw: Buffer): BulkSource {
  const items = scanJsonItems(raw, {
    maxItems: (field) => (field === 'articles' ? BULK_MAX_ARTICLES : REQUEST_LIMITS.maxListItems),
    tooMany: (field, maxItems) =>
      field === 'articles'
        ? new AppError('tooManyArticles', `At most ${maxItems} articles.`)
        : new AppError('listTooLong', `${field} holds more than ${maxItems} items.`),
  });
  const listOrAbsent = (field: string): boolean => {
    if (!items.fields.has(field) || items.isArray(field)) return items.fields.has(field);
    if (items.value(field) === null) return false;
    throw new AppError('invalidBody', `${field === 'groups' ? 'Groups' : 'Articles'} must be a list.`);
  };
  const hasGroups = listOrAbsent('groups');
  listOrAbsent('articles');
  return {
    groups: hasGroups ? (items.value('groups') as unknown[]) : undefined,
    articleCount: items.count('articles'),
    article: (i) => items.item('articles', i),
  };
}

/** The sortiment bulk upload, in a scope of its own: its bodies are read item by item. */
export const sortimentBulkRoutes: FastifyPluginAsync = async (scope) => {
  const app = scope.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;
  registerItemwiseParsers(app, BULK_XML_LIMITS);

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
          `${BULK_MAX_ARTICLES} articles per upload; in XML at most 2,000,000 elements.`,
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
          }),
        },
      },
    },
    async (request) => {
      const { unit } = callerUnit(request);
      const s = await findSortiment(db, unit.merchantId, request.params.serviceSortimentId);
      const xml = /xml/i.test(request.headers['content-type'] ?? '');
      const raw = request.jsonBytes;
      request.jsonBytes = null;
      const source = raw
        ? jsonSource(raw)
        : arraySource((request.body ?? {}) as { Groups?: unknown[]; Articles?: unknown[] });
      const started = Date.now();
      return bulkUpload(db, unit.merchantId, s.id, source, {
        changedArticlesOnly: request.query.changedArticlesOnly,
        currency: unit.currency,
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
    },
  );
};
