import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { brandsWithOutlets } from '../merchants/merchant.store.js';
import { merchantSortiments, searchArticles } from '../reports/catalog.store.js';
import { AppError } from '../shared/errors.js';
import { pageOf, pageRequest } from '../shared/paging.js';
import { currencyExponent, minorToMajorText } from '../shared/money.js';
import { allergenNames } from '../sortiment/allergens.js';
import { answer, auth } from '../wire/openapi.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import { langOf } from './i18n.js';
import { portalErrors } from './schemas.js';
import { requireSession } from './session.js';
import type { Session } from '../portal-users/portal-auth.service.js';
import type { PortalLang } from '../portal-users/portal-user.store.js';
import { type ViewDeps, viewDeps } from './views.js';

const TAG = 'Portal: catalog';

export const CatalogSchema = Type.Object(
  {
    brands: Type.Array(
      Type.Object({
        brandId: Type.Integer(),
        brandName: Type.String(),
        outlets: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })),
      }),
    ),
    sortiments: Type.Array(
      Type.Object({
        id: Type.Integer(),
        identifier: Type.String({ description: "The till's thirdPartySortimentIdentifier." }),
        name: Type.Union([Type.String(), Type.Null()]),
        articles: Type.Integer({ description: 'Live articles.' }),
      }),
    ),
  },
  { title: 'PortalCatalog' },
);

export const ArticleRowSchema = Type.Object({
  plu: Type.String(),
  name: Type.String({ description: "The article's name in the user's language, else its first." }),
  groupId: Type.Union([Type.String(), Type.Null()]),
  groupName: Type.Union([Type.String(), Type.Null()]),
  prices: Type.Array(
    Type.Object({ value: Type.String({ description: 'Major units.' }), currency: Type.String() }),
  ),
  allergens: Type.Array(Type.String()),
  soldOut: Type.Boolean(),
});

/** The merchant's brands with their outlets, and its sortiments. */
export async function catalogView(deps: ViewDeps, s: Session) {
  const brands = await brandsWithOutlets(deps.db, s.merchantId);
  return {
    brands: brands.map((b) => ({
      brandId: b.brandId,
      brandName: b.brandName,
      outlets: b.outlets.map((o) => ({ id: o.Id, name: o.Name })),
    })),
    sortiments: await merchantSortiments(deps.db, s.merchantId),
  };
}

/** A page of a sortiment's articles by PLU prefix or name, in PLU order, named in `lang`. */
export async function articlesView(
  deps: ViewDeps,
  s: Session,
  lang: PortalLang,
  sortimentId: number,
  query: { search?: string; limit?: number; cursor?: string },
) {
  const page = pageRequest('portalArticles', query, ['string']);
  const found = await searchArticles(deps.db, s.merchantId, sortimentId, query.search ?? '', page);
  if (!found) throw new AppError('notFound', 'No sortiment under this id.');
  return pageOf(
    'portalArticles',
    found,
    page.limit,
    (r) => [r.plu],
    ({ plu, groupId, groupName, article }) => ({
      plu,
      name: (article.Name.find((n) => n.lang === lang) ?? article.Name[0])?.val ?? plu,
      groupId,
      groupName,
      prices: article.Prices.map((p) => ({
        value: minorToMajorText(p.ValueMinor, currencyExponent(p.CurrencyIso)),
        currency: p.CurrencyIso,
      })),
      allergens: allergenNames(article.Allergens, lang).map((a) => a.Name),
      soldOut: article.SoldOut === true,
    }),
  );
}

export const portalCatalogRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = viewDeps(app);

  app.get(
    '/catalog',
    {
      schema: {
        tags: [TAG],
        summary: "The merchant's brands with their outlets, and its sortiments",
        operationId: 'getPortalCatalog',
        security: auth.portal,
        response: { 200: answer('Brands, outlets and sortiments.', CatalogSchema), ...portalErrors({}) },
      },
    },
    async (request) => catalogView(deps, requireSession(request)),
  );

  app.get(
    '/sortiments/:sortimentId/articles',
    {
      schema: {
        tags: [TAG],
        summary: 'Articles of a sortiment by PLU prefix or name, with prices, allergens and sold-out state',
        operationId: 'searchPortalArticles',
        security: auth.portal,
        params: Type.Object({ sortimentId: Type.Integer({ minimum: 1 }) }),
        querystring: Type.Object({
          search: Type.Optional(
            Type.String({
              maxLength: 100,
              description:
                'PLU prefix, or part of the name in any of its languages; case-insensitive, accented letters read as plain ones and umlauts as their two-letter spellings (cafe finds Café, kaese finds Käse).',
            }),
          ),
          ...pageQueryFields,
        }),
        response: {
          200: answer('The articles found, in PLU order.', PageOf(ArticleRowSchema, 'PortalArticlePage')),
          ...portalErrors({
            400: `Path invalid (invalid_request). ${pageErrors[400]}`,
            404: "Sortiment unknown, or another merchant's (not_found).",
          }),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const lang = langOf(s.lang, request.headers['accept-language']);
      return articlesView(deps, s, lang, request.params.sortimentId, request.query);
    },
  );
};
