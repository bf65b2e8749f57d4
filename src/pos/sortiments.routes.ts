import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { menuLanguage } from '../sortiment/allergens.js';
import { findSortiment, lookupSortiment } from '../sortiment/sortiment.store.js';
import {
  listMenuArticles,
  menuArticle,
  readMenuArticle,
  removeArticle,
  removeGroup,
  writeArticle,
  writeGroup,
} from '../sortiment/sortiment.service.js';
import { answeredNotModified, setRevalidation, versionEtag } from '../wire/conditional.js';
import { answer } from '../wire/openapi.js';
import { Empty, posErrors, sendEmpty } from '../wire/schemas.js';
import { AUTH_REFUSALS, callerUnit } from './route-auth.js';
import { sortimentBulkRoutes } from './sortiment-bulk.routes.js';
import {
  ArticleOutSchema,
  ArticlePageSchema,
  ArticleSchema,
  GroupSchema,
  SortimentParams,
  SortimentSchema,
} from './sortiment.schemas.js';

const TAGS = ['POS: sortiments'];
const AUTH_ERRORS = AUTH_REFUSALS.activeUnit;

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

export const sortimentRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;

  app.get(
    '/sortiments',
    {
      config: { auth: 'activeUnit' },
      schema: {
        tags: TAGS,
        summary: 'Get the id of a sortiment, creating it on first call',
        operationId: 'getSortiment',
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
      const { serviceSortimentId, Id } = request.params;
      await writeGroup(db, unit.merchantId, serviceSortimentId, Id, request.body, 'create');
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
      const { serviceSortimentId, Id } = request.params;
      await writeGroup(db, unit.merchantId, serviceSortimentId, Id, request.body, 'update');
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
      await removeGroup(db, unit.merchantId, request.params.serviceSortimentId, request.params.Id);
      return sendEmpty(reply);
    },
  );

  // ------------------------------------------------------------------------------------------
  // Articles

  /** The article of the path, with the query's groupId (docs/decisions.md, "Sortiment"). */
  const articlePath = (request: { params: { PLU: string }; query: { groupId?: string } }) => ({
    plu: request.params.PLU,
    queryGroupId: emptyToNull(request.query.groupId),
  });

  app.post(
    '/sortiments/:serviceSortimentId/article/:PLU',
    {
      config: { auth: 'activeUnit' },
      schema: {
        tags: TAGS,
        summary: 'Create an article',
        operationId: 'createArticle',
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
      const { serviceSortimentId } = request.params;
      await writeArticle(db, unit, serviceSortimentId, articlePath(request), request.body, 'create');
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
      const { serviceSortimentId } = request.params;
      await writeArticle(db, unit, serviceSortimentId, articlePath(request), request.body, 'update');
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
      const { plu, queryGroupId } = articlePath(request);
      await removeArticle(db, unit.merchantId, request.params.serviceSortimentId, plu, queryGroupId);
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
      if (answeredNotModified(request, reply, versionEtag(request, s.version, lang))) {
        return sendEmpty(reply, 304);
      }
      const { plu, queryGroupId } = articlePath(request);
      const { article, version } = await readMenuArticle(db, unit.merchantId, s.id, plu, queryGroupId);
      setRevalidation(reply, versionEtag(request, version, lang));
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
      if (answeredNotModified(request, reply, versionEtag(request, s.version, lang))) {
        return sendEmpty(reply, 304);
      }
      const { page, pageSize } = request.query;
      const listed = await listMenuArticles(db, unit.merchantId, s.id, {
        offset: (page - 1) * pageSize,
        limit: pageSize,
        groupId: emptyToNull(request.query.groupId),
      });
      setRevalidation(reply, versionEtag(request, listed.version, lang));
      return {
        Page: page,
        PageSize: pageSize,
        Total: listed.total,
        Articles: listed.articles.map((a) => menuArticle(a, lang)),
      };
    },
  );

  // The bulk upload, in a scope of its own: its bodies are read item by item.
  await app.register(sortimentBulkRoutes);
};
