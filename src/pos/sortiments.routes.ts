import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { AppError } from '../shared/errors.js';
import { additiveNames, allergenNames, menuLanguage } from '../sortiment/allergens.js';
import { type StoredArticle, articleOut, parseArticle, parseGroup } from '../sortiment/article.js';
import { BULK_MAX_ARTICLES, type BulkSource, arraySource, bulkUpload } from '../sortiment/bulk-upload.js';
import {
  createArticle,
  createGroup,
  deleteArticle,
  deleteGroup,
  findSortiment,
  listArticles,
  lookupSortiment,
  readArticle,
  updateArticle,
  updateGroup,
} from '../sortiment/sortiment.store.js';
import { registerXmlParser } from '../wire/content-parsers.js';
import { scanJsonItems } from '../wire/json-items.js';
import { type ParseLimits, REQUEST_LIMITS } from '../wire/parse-limits.js';
import { jsonBodyText } from '../wire/request-guards.js';
import { negotiate } from '../wire/negotiate.js';
import { type Schema, normaliseValue } from '../wire/normalise.js';
import { answer, auth } from '../wire/openapi.js';
import { Empty, posErrors, sendEmpty } from '../wire/schemas.js';
import { callerUnit } from './route-auth.js';
import {
  ArticleOutSchema,
  ArticlePageSchema,
  ArticleSchema,
  BulkBodySchema,
  BulkResultSchema,
  GroupSchema,
  SortimentSchema,
} from './sortiment.schemas.js';

const TAGS = ['POS: sortiments'];
const AUTH_ERRORS = {
  401: 'DevKey or trackingUnitId missing, unknown or not matching (1001, 1002); DevKey revoked (1043).',
  403: 'trackingUnit not activated (1004) or deactivated (1042).',
};

const SortimentParams = Type.Object({
  serviceSortimentId: Type.String({ maxLength: 40, description: 'From GET /sortiments.' }),
});
const GroupParams = Type.Object({
  serviceSortimentId: Type.String({ maxLength: 40 }),
  Id: Type.String({ minLength: 1, maxLength: 100 }),
});
const ArticleParams = Type.Object({
  serviceSortimentId: Type.String({ maxLength: 40 }),
  PLU: Type.String({ minLength: 1, maxLength: 100 }),
});
const GroupIdQuery = Type.Object({
  groupId: Type.Optional(
    Type.String({ maxLength: 100, description: 'Must agree with the body GroupId (1000).' }),
  ),
});
const LangQuery = {
  lang: Type.Optional(
    Type.String({ maxLength: 35, description: 'Language of allergen names (en, de); else Accept-Language.' }),
  ),
};

function emptyToNull(v: string | undefined): string | null {
  return v === undefined || v === '' ? null : v;
}

/** Weak comparison of If-None-Match against the current ETag (RFC 9110, 13.1.2). */
function notModified(request: FastifyRequest, etag: string): boolean {
  const header = request.headers['if-none-match'];
  if (!header) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag.replace(/^W\//, '') === etag;
  });
}

/** The menu ETag: the sortiment version, per representation (format and language). */
function menuEtag(request: FastifyRequest, version: number, lang: string): string {
  const format = negotiate(request.headers.accept, request.headers['content-type']);
  return `"v${version}-${format}-${lang}"`;
}

function setCacheHeaders(reply: FastifyReply, etag: string): void {
  reply.header('etag', etag);
  reply.header('cache-control', 'no-cache');
  reply.header('vary', 'Accept, Accept-Language');
}

function menuArticle(a: StoredArticle, lang: 'en' | 'de') {
  return {
    ...articleOut(a),
    AllergenInfo: allergenNames(a.Allergens, lang),
    TraceInfo: allergenNames(a.Traces, lang),
    AdditiveInfo: additiveNames(a.Additives),
  };
}

/**
 * The bulk upload in XML: its article list may be as long as the upload allows, its document at
 * most 2,000,000 elements (about 100,000 articles of 20 elements; larger sortiments go as JSON,
 * which is read one article at a time).
 */
const BULK_XML_LIMITS: ParseLimits = { maxXmlElements: 2_000_000, maxListItems: BULK_MAX_ARTICLES };

/** JSON bulk bodies, kept as bytes until the handler reads them item by item. */
const rawBulkBodies = new WeakMap<FastifyRequest, Buffer>();

const JSON_MEDIA = /^(application|text)\/([a-z0-9.-]+\+)?json(\s*;.*)?$/i;

/**
 * The bulk route's own parsers: JSON is not parsed into one tree (60 MB of JSON would take several
 * times that as objects) but scanned and read item by item; XML as everywhere on the POS wire.
 */
function registerBulkParsers(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(JSON_MEDIA, { parseAs: 'buffer' }, (request, body, done) => {
    let buf: Buffer;
    try {
      buf = jsonBodyText(body as Buffer);
    } catch (err) {
      done(err as Error, undefined);
      return;
    }
    if (buf.every((b) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09)) {
      done(null, undefined);
      return;
    }
    rawBulkBodies.set(request, buf);
    done(null, {});
  });
  registerXmlParser(scope, BULK_XML_LIMITS);
  scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => {
    if (String(body).trim() === '') done(null, undefined);
    else done(new AppError('unsupportedMediaType'), undefined);
  });
}

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

function isXmlBody(request: FastifyRequest): boolean {
  return /xml/i.test(request.headers['content-type'] ?? '');
}

export const sortimentRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;
  const ctx = app.ctx;

  app.get(
    '/sortiments',
    {
      config: { auth: 'activeUnit' },
      schema: {
        tags: TAGS,
        summary: 'Get the id of a sortiment, creating it on first call',
        operationId: 'getSortiment',
        security: auth.unit,
        description:
          "Returns the merchant's sortiment with this identifier, made on the first call; later calls return the same " +
          'serviceSortimentId. A later call with another name renames it.',
        querystring: Type.Object({
          thirdPartySortimentIdentifier: Type.String({ minLength: 1, maxLength: 200 }),
          name: Type.Optional(Type.String({ maxLength: 200 })),
        }),
        response: {
          200: answer('The sortiment and its serviceSortimentId.', SortimentSchema),
          ...posErrors({ 400: 'Query invalid (1000).', ...AUTH_ERRORS }),
        },
      },
    },
    async (request) => {
      const { unit } = callerUnit(request);
      const s = await lookupSortiment(
        db,
        unit.merchantId,
        request.query.thirdPartySortimentIdentifier,
        emptyToNull(request.query.name),
      );
      return {
        serviceSortimentId: String(s.id),
        thirdPartySortimentIdentifier: s.thirdPartyIdentifier,
        Name: s.name,
        menuId: s.id,
      };
    },
  );

  // ------------------------------------------------------------------------------------------
  // Groups

  const groupSchema = (summary: string, errors400: string) => ({
    tags: TAGS,
    summary,
    security: auth.unit,
    params: GroupParams,
    response: { 200: answer('Done (empty body).', Empty), ...posErrors({ 400: errors400, ...AUTH_ERRORS }) },
  });

  app.post(
    '/sortiments/:serviceSortimentId/group/:Id',
    {
      config: { auth: 'activeUnit' },
      schema: {
        ...groupSchema(
          'Create a group',
          'Body invalid or Id not that of the path (1000); sortiment unknown (12001); UpGroupId unknown (12003); group exists (12010).',
        ),
        operationId: 'createGroup',
        body: GroupSchema,
      },
    },
    async (request, reply) => {
      const { unit } = callerUnit(request);
      const s = await findSortiment(db, unit.merchantId, request.params.serviceSortimentId);
      const group = parseGroup(request.body ?? {}, request.params.Id);
      if (!group.ok) throw new AppError(group.error.error, group.error.detail);
      await createGroup(db, unit.merchantId, s.id, group.value);
      return sendEmpty(reply);
    },
  );

  app.put(
    '/sortiments/:serviceSortimentId/group/:Id',
    {
      config: { auth: 'activeUnit' },
      schema: {
        ...groupSchema(
          'Update a group',
          'Body invalid, Id not that of the path or UpGroupId making a cycle (1000); sortiment unknown (12001); UpGroupId unknown (12003); group unknown (12011).',
        ),
        operationId: 'updateGroup',
        body: GroupSchema,
      },
    },
    async (request, reply) => {
      const { unit } = callerUnit(request);
      const s = await findSortiment(db, unit.merchantId, request.params.serviceSortimentId);
      const group = parseGroup(request.body ?? {}, request.params.Id);
      if (!group.ok) throw new AppError(group.error.error, group.error.detail);
      await updateGroup(db, unit.merchantId, s.id, group.value);
      return sendEmpty(reply);
    },
  );

  app.delete(
    '/sortiments/:serviceSortimentId/group/:Id',
    {
      config: { auth: 'activeUnit' },
      schema: {
        ...groupSchema(
          'Delete a group',
          'Sortiment unknown (12001); group unknown (12011); group still holds articles or groups (12012).',
        ),
        operationId: 'deleteGroup',
      },
    },
    async (request, reply) => {
      const { unit } = callerUnit(request);
      const s = await findSortiment(db, unit.merchantId, request.params.serviceSortimentId);
      await deleteGroup(db, unit.merchantId, s.id, request.params.Id);
      return sendEmpty(reply);
    },
  );

  // ------------------------------------------------------------------------------------------
  // Articles

  /** The article of a create or update, with the path and query checks of the contract. */
  const articleFromRequest = (
    body: unknown,
    plu: string,
    queryGroupId: string | null,
    currency: string,
  ): StoredArticle => {
    const parsed = parseArticle(body ?? {}, currency);
    if (!parsed.ok) throw new AppError(parsed.error.error, parsed.error.detail);
    const article = parsed.value;
    if (article.PLU !== plu)
      throw new AppError('refused', 'PLU of the body differs from the PLU of the path.');
    if (queryGroupId !== null && article.GroupId !== null && queryGroupId !== article.GroupId) {
      throw new AppError('refused', 'groupId of the query and GroupId of the body differ.');
    }
    return { ...article, GroupId: article.GroupId ?? queryGroupId };
  };

  app.post(
    '/sortiments/:serviceSortimentId/article/:PLU',
    {
      config: { auth: 'activeUnit' },
      schema: {
        tags: TAGS,
        summary: 'Create an article',
        operationId: 'createArticle',
        security: auth.unit,
        params: ArticleParams,
        querystring: GroupIdQuery,
        body: ArticleSchema,
        response: {
          200: answer('Done (empty body).', Empty),
          ...posErrors({
            400: 'Body invalid, PLU or groupId not agreeing (1000); sortiment unknown (12001); group unknown (12003); no name (12005); no PLU (12008); PLU exists (12009).',
            ...AUTH_ERRORS,
          }),
        },
      },
    },
    async (request, reply) => {
      const { unit } = callerUnit(request);
      const s = await findSortiment(db, unit.merchantId, request.params.serviceSortimentId);
      const article = articleFromRequest(
        request.body,
        request.params.PLU,
        emptyToNull(request.query.groupId),
        unit.currency,
      );
      await createArticle(db, unit.merchantId, s.id, article);
      return sendEmpty(reply);
    },
  );

  app.put(
    '/sortiments/:serviceSortimentId/article/:PLU',
    {
      config: { auth: 'activeUnit' },
      schema: {
        tags: TAGS,
        summary: 'Update an article (replaces it; GroupId cannot change)',
        operationId: 'updateArticle',
        security: auth.unit,
        params: ArticleParams,
        querystring: GroupIdQuery,
        body: ArticleSchema,
        response: {
          200: answer('Done (empty body).', Empty),
          ...posErrors({
            400: "Body invalid, PLU or groupId not agreeing (1000); sortiment unknown (12001); no name (12005); no article under this PLU (12006); groupId or GroupId naming another group than the article's (12007); no PLU (12008).",
            ...AUTH_ERRORS,
          }),
        },
      },
    },
    async (request, reply) => {
      const { unit } = callerUnit(request);
      const s = await findSortiment(db, unit.merchantId, request.params.serviceSortimentId);
      const queryGroupId = emptyToNull(request.query.groupId);
      const article = articleFromRequest(request.body, request.params.PLU, queryGroupId, unit.currency);
      await updateArticle(db, unit.merchantId, s.id, article, queryGroupId);
      return sendEmpty(reply);
    },
  );

  app.delete(
    '/sortiments/:serviceSortimentId/article/:PLU',
    {
      config: { auth: 'activeUnit' },
      schema: {
        tags: TAGS,
        summary: 'Delete an article',
        operationId: 'deleteArticle',
        security: auth.unit,
        params: ArticleParams,
        querystring: GroupIdQuery,
        response: {
          200: answer('Deleted (empty body).', Empty),
          ...posErrors({
            400: 'Sortiment unknown (12001); no article under this PLU (in this group, when given) (12006).',
            ...AUTH_ERRORS,
          }),
        },
      },
    },
    async (request, reply) => {
      const { unit } = callerUnit(request);
      const s = await findSortiment(db, unit.merchantId, request.params.serviceSortimentId);
      await deleteArticle(db, unit.merchantId, s.id, request.params.PLU, emptyToNull(request.query.groupId));
      return sendEmpty(reply);
    },
  );

  app.get(
    '/sortiments/:serviceSortimentId/article/:PLU',
    {
      config: { auth: 'activeUnit' },
      schema: {
        tags: TAGS,
        summary: 'Read an article (digital menus)',
        operationId: 'readArticle',
        security: auth.unit,
        description:
          'ETag from the sortiment version; If-None-Match answers 304. Allergen and trace names in the language of ' +
          '`lang` or Accept-Language (en, de).',
        params: ArticleParams,
        querystring: Type.Object({ ...GroupIdQuery.properties, ...LangQuery }),
        response: {
          200: answer('The article with allergen, additive and trace names.', ArticleOutSchema),
          304: Type.Null({ description: 'Not modified since the ETag of If-None-Match.' }),
          ...posErrors({
            400: 'Query invalid (1000); sortiment unknown (12001).',
            ...AUTH_ERRORS,
            404: 'No article under this PLU (in this group, when given) (12006).',
          }),
        },
      },
    },
    async (request, reply) => {
      const { unit } = callerUnit(request);
      const s = await findSortiment(db, unit.merchantId, request.params.serviceSortimentId);
      const lang = menuLanguage(request.query.lang, request.headers['accept-language']);
      const etag = menuEtag(request, s.version, lang);
      if (notModified(request, etag)) {
        setCacheHeaders(reply, etag);
        return sendEmpty(reply, 304);
      }
      const { article, version } = await db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          const current = await findSortiment(trx, unit.merchantId, String(s.id));
          const article = await readArticle(trx, s.id, current.currentGen, request.params.PLU);
          return { article, version: current.version };
        });
      const groupId = emptyToNull(request.query.groupId);
      if (!article || (groupId !== null && article.GroupId !== groupId))
        throw new AppError('articleNotFound');
      setCacheHeaders(reply, menuEtag(request, version, lang));
      return menuArticle(article, lang);
    },
  );

  app.get(
    '/sortiments/:serviceSortimentId/articles',
    {
      config: { auth: 'activeUnit' },
      schema: {
        tags: TAGS,
        summary: 'List articles, paged (digital menus)',
        operationId: 'listArticles',
        security: auth.unit,
        description:
          'Articles in PLU order, `page` (from 1) of `pageSize` (1 to 1000, default 100), optionally of one group. ' +
          'ETag from the sortiment version; If-None-Match answers 304.',
        params: SortimentParams,
        querystring: Type.Object({
          page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1 }),
          pageSize: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
          groupId: Type.Optional(Type.String({ maxLength: 100 })),
          ...LangQuery,
        }),
        response: {
          200: answer('One page of articles.', ArticlePageSchema),
          304: Type.Null({ description: 'Not modified since the ETag of If-None-Match.' }),
          ...posErrors({ 400: 'Query invalid (1000); sortiment unknown (12001).', ...AUTH_ERRORS }),
        },
      },
    },
    async (request, reply) => {
      const { unit } = callerUnit(request);
      const s = await findSortiment(db, unit.merchantId, request.params.serviceSortimentId);
      const lang = menuLanguage(request.query.lang, request.headers['accept-language']);
      const etag = menuEtag(request, s.version, lang);
      if (notModified(request, etag)) {
        setCacheHeaders(reply, etag);
        return sendEmpty(reply, 304);
      }
      const { page, pageSize } = request.query;
      const { result, version } = await db
        .transaction()
        .setIsolationLevel('repeatable read')
        .execute(async (trx) => {
          const current = await findSortiment(trx, unit.merchantId, String(s.id));
          const listed = await listArticles(trx, s.id, current.currentGen, {
            offset: (page - 1) * pageSize,
            limit: pageSize,
            groupId: emptyToNull(request.query.groupId),
          });
          return { result: listed, version: current.version };
        });
      setCacheHeaders(reply, menuEtag(request, version, lang));
      return {
        Page: page,
        PageSize: pageSize,
        Total: result.total,
        Articles: result.articles.map((a) => menuArticle(a, lang)),
      };
    },
  );

  // ------------------------------------------------------------------------------------------
  // Bulk upload

  await app.register(async (scope) => {
    const bulkApp = scope.withTypeProvider<TypeBoxTypeProvider>();
    registerBulkParsers(bulkApp);
    bulkApp.post(
      '/sortiments/:serviceSortimentId/bulkUpload',
      {
        config: { auth: 'activeUnit' },
        bodyLimit: ctx.config.bulkBodyLimitBytes,
        schema: {
          tags: TAGS,
          summary: 'Bulk upload of groups and articles (all or nothing)',
          operationId: 'bulkUploadSortiment',
          security: auth.unit,
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
              ...AUTH_ERRORS,
              413: 'Body too large after decompression (1008).',
              415: 'Content-Type or Content-Encoding not supported (1007, 1009).',
            }),
          },
        },
      },
      async (request) => {
        const { unit } = callerUnit(request);
        const s = await findSortiment(db, unit.merchantId, request.params.serviceSortimentId);
        const xml = isXmlBody(request);
        const raw = rawBulkBodies.get(request);
        rawBulkBodies.delete(request);
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
  });
};
