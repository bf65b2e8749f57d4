import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { brandsWithOutlets, createOutlet, findMerchantByName } from '../merchants/merchant.store.js';
import { AppError } from '../shared/errors.js';
import { answer } from '../wire/openapi.js';
import { posErrors } from '../wire/schemas.js';
import { AUTH_REFUSALS } from './route-auth.js';

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
        description: 'Header DevKey only. The user name is URL-escaped and may hold non-ASCII characters.',
        params: UserNameParams,
        response: {
          200: answer(
            "The merchant's brands, each with its outlets.",
            Type.Array(MerchantInfo, { xml: { name: 'ArrayOfMerchantInfo' }, title: 'MerchantInfoList' }),
          ),
          ...posErrors({
            ...AUTH_REFUSALS.devKey,
            404: 'User name unknown or without brands (1005).',
          }),
        },
      },
    },
    async (request) => {
      const merchant = await findMerchantByName(db, request.params.serviceUserName);
      if (!merchant) throw new AppError('merchantUnknown');
      const brands = await brandsWithOutlets(db, merchant.id);
      if (brands.length === 0) throw new AppError('merchantUnknown');
      return brands;
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
            ...AUTH_REFUSALS.devKey,
            404: 'User name unknown or without brands (1005); brand not of this merchant (10004).',
          }),
        },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      // Merchants are never deleted, so the lookup need not share the outlet's transaction.
      const merchant = await findMerchantByName(db, request.params.serviceUserName);
      if (!merchant) throw new AppError('merchantUnknown');
      const outlet = await createOutlet(db, merchant.id, request.query.brandId, {
        name: body.Name ?? null,
        description: body.Description ?? null,
        street: body.Street ?? null,
        city: body.City ?? null,
        postalIndex: body.PostalIndex ?? null,
        countryIso: body.CountryIso?.toUpperCase() ?? null,
        publicTelefon: body.PublicTelefon ?? null,
        publicEmail: body.PublicEmail ?? null,
        websiteUrl: body.WebsiteUrl ?? null,
        facebookUrl: body.FacebookUrl ?? null,
        twitterUrl: body.TwitterUrl ?? null,
      });
      if (!outlet) throw new AppError('brandUnknown');
      return { Id: outlet.id, Name: outlet.name ?? '' };
    },
  );
};
