import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { AppError } from '../shared/errors.js';
import { answer, auth } from '../wire/openapi.js';
import { posErrors } from '../wire/schemas.js';

const MerchantInfo = Type.Object(
  {
    brandId: Type.Integer(),
    brandName: Type.String(),
    outlets: Type.Array(
      Type.Object({ Id: Type.Integer(), Name: Type.String() }, { xml: { name: 'Outlet' } }),
    ),
  },
  { xml: { name: 'MerchantInfo' } },
);

const OutletBody = Type.Object({
  Name: Type.Optional(Type.String({ maxLength: 200 })),
  Description: Type.Optional(Type.String({ maxLength: 4000 })),
  Street: Type.Optional(Type.String({ maxLength: 200 })),
  City: Type.Optional(Type.String({ maxLength: 200 })),
  PostalIndex: Type.Optional(Type.String({ maxLength: 20 })),
  CountryIso: Type.Optional(Type.String({ pattern: '^[A-Za-z]{2}$' })),
  PublicTelefon: Type.Optional(Type.String({ maxLength: 50 })),
  PublicEmail: Type.Optional(Type.String({ maxLength: 200 })),
  WebsiteUrl: Type.Optional(Type.String({ maxLength: 2000 })),
  FacebookUrl: Type.Optional(Type.String({ maxLength: 2000 })),
  TwitterUrl: Type.Optional(Type.String({ maxLength: 2000 })),
});

const UserNameParams = Type.Object({ serviceUserName: Type.String({ minLength: 1, maxLength: 200 }) });

export const merchantRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;

  app.get(
    '/merchants/:serviceUserName/info',
    {
      config: { auth: 'devKey' },
      schema: {
        tags: ['POS: merchants'],
        summary: 'Merchant info: brands with their outlets',
        operationId: 'readMerchantInfo',
        security: auth.devKey,
        description: 'Header DevKey only. The user name is URL-escaped and may hold non-ASCII characters.',
        params: UserNameParams,
        response: {
          200: answer(
            "The merchant's brands, each with its outlets.",
            Type.Array(MerchantInfo, { xml: { name: 'ArrayOfMerchantInfo' }, title: 'MerchantInfoList' }),
          ),
          ...posErrors({
            401: 'DevKey missing or unknown (1001) or revoked (1043).',
            404: 'User name unknown or without brands (1005).',
          }),
        },
      },
    },
    async (request) => {
      const merchant = await db
        .selectFrom('merchants')
        .select('id')
        .where('service_user_name', '=', request.params.serviceUserName)
        .executeTakeFirst();
      if (!merchant) throw new AppError('merchantUnknown');
      const rows = await db
        .selectFrom('brands as b')
        .leftJoin('brand_outlets as bo', 'bo.brand_id', 'b.id')
        .leftJoin('outlets as o', 'o.id', 'bo.outlet_id')
        .select(['b.id as brandId', 'b.name as brandName', 'o.id as outletId', 'o.name as outletName'])
        .where('b.merchant_id', '=', merchant.id)
        .orderBy('b.id')
        .orderBy('o.id')
        .execute();
      if (rows.length === 0) throw new AppError('merchantUnknown');
      const brands = new Map<
        number,
        { brandId: number; brandName: string; outlets: { Id: number; Name: string }[] }
      >();
      for (const r of rows) {
        let brand = brands.get(r.brandId);
        if (!brand) {
          brand = { brandId: r.brandId, brandName: r.brandName, outlets: [] };
          brands.set(r.brandId, brand);
        }
        if (r.outletId !== null) brand.outlets.push({ Id: r.outletId, Name: r.outletName ?? '' });
      }
      return [...brands.values()];
    },
  );

  app.post(
    '/merchants/:serviceUserName/outlets',
    {
      config: { auth: 'devKey' },
      schema: {
        tags: ['POS: merchants'],
        summary: 'Create an outlet of a brand',
        operationId: 'createOutlet',
        security: auth.devKey,
        description: 'Header DevKey only. All body fields are optional.',
        params: UserNameParams,
        querystring: Type.Object({ brandId: Type.Integer({ minimum: 1 }) }),
        body: Type.Optional(OutletBody),
        response: {
          200: answer(
            'The new outlet.',
            Type.Object(
              { Id: Type.Integer(), Name: Type.String() },
              { xml: { name: 'Outlet' }, title: 'Outlet' },
            ),
          ),
          ...posErrors({
            400: 'Body or query invalid (1000).',
            401: 'DevKey missing or unknown (1001) or revoked (1043).',
            404: 'User name unknown or without brands (1005); brand not of this merchant (10004).',
          }),
        },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      return db.transaction().execute(async (trx) => {
        const merchant = await trx
          .selectFrom('merchants')
          .select('id')
          .where('service_user_name', '=', request.params.serviceUserName)
          .executeTakeFirst();
        if (!merchant) throw new AppError('merchantUnknown');
        const brand = await trx
          .selectFrom('brands')
          .select('id')
          .where('merchant_id', '=', merchant.id)
          .where('id', '=', request.query.brandId)
          .executeTakeFirst();
        if (!brand) throw new AppError('brandUnknown');
        const outlet = await trx
          .insertInto('outlets')
          .values({
            merchant_id: merchant.id,
            name: body.Name ?? null,
            description: body.Description ?? null,
            street: body.Street ?? null,
            city: body.City ?? null,
            postal_index: body.PostalIndex ?? null,
            country_iso: body.CountryIso?.toUpperCase() ?? null,
            public_telefon: body.PublicTelefon ?? null,
            public_email: body.PublicEmail ?? null,
            website_url: body.WebsiteUrl ?? null,
            facebook_url: body.FacebookUrl ?? null,
            twitter_url: body.TwitterUrl ?? null,
          })
          .returning(['id', 'name'])
          .executeTakeFirstOrThrow();
        await trx
          .insertInto('brand_outlets')
          .values({ merchant_id: merchant.id, brand_id: brand.id, outlet_id: outlet.id })
          .execute();
        return { Id: outlet.id, Name: outlet.name ?? '' };
      });
    },
  );
};
