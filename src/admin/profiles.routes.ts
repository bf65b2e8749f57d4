import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { MailAddress } from '../wire/documents/mail-address.schemas.js';
import { parseTokenType } from '../cards/card.service.js';
import { createOtp, createProfile, getProfile, linkToken } from '../cards/profile.service.js';
import { findMerchantByName } from '../merchants/merchant.store.js';
import { AppError } from '../shared/errors.js';
import { answer } from '../wire/openapi.js';
import { Nullable, apiErrors } from '../wire/schemas.js';
import { TierStatusSchema } from '../wire/tier.schemas.js';

const auth = { 401: 'Authorization missing or wrong (unauthorized).' };

const Minor = (description: string) => Type.Optional(Nullable(Type.Integer({ minimum: 0, description })));

const BalanceConfigSchema = Type.Object({
  isTopUpAllowed: Type.Optional(Type.Boolean({ default: true })),
  isChargeAllowed: Type.Optional(Type.Boolean({ default: true })),
  maxAmount: Minor('Maximum balance the profile may hold, minor units; null: no limit.'),
  maxSingleTopUpAmount: Minor('Maximum single top-up, minor units.'),
  minSingleTopUpAmount: Minor('Minimum single top-up, minor units.'),
  maxMonthlyTopUpAmount: Minor('Maximum added in one calendar month, minor units.'),
});

const ProfileBody = Type.Object({
  fullName: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.Optional(MailAddress({ maxLength: 320 })),
  language: Type.Optional(Type.String({ maxLength: 35, pattern: '^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$' })),
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 100 })),
  partnerUserId: Type.Optional(
    Type.String({
      pattern: '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$',
      description: 'Id of the user at the third party (uuid).',
    }),
  ),
  balanceConfig: Type.Optional(BalanceConfigSchema),
});

const ProfileSchema = Type.Object({
  id: Type.Integer(),
  serviceUserName: Type.String(),
  fullName: Type.Union([Type.String(), Type.Null()]),
  email: Type.Union([Type.String(), Type.Null()]),
  language: Type.Union([Type.String(), Type.Null()]),
  tags: Type.Array(Type.Object({ id: Type.Integer(), name: Type.String() })),
  partner: Type.Union([Type.Object({ userId: Type.String() }), Type.Null()]),
  balance: Type.Object({
    totalAmount: Type.Integer({ description: 'Minor units.' }),
    currency: Type.String(),
    config: Type.Object({
      isTopUpAllowed: Type.Boolean(),
      isChargeAllowed: Type.Boolean(),
      maxAmount: Type.Union([Type.Integer(), Type.Null()]),
      maxSingleTopUpAmount: Type.Union([Type.Integer(), Type.Null()]),
      minSingleTopUpAmount: Type.Union([Type.Integer(), Type.Null()]),
      maxMonthlyTopUpAmount: Type.Union([Type.Integer(), Type.Null()]),
    }),
  }),
  tokens: Type.Array(
    Type.Object({ tokenId: Type.String(), tokenType: Type.Integer(), state: Type.String() }),
  ),
  tiers: Type.Array(TierStatusSchema, {
    description:
      'Where the profile stands in each live loyalty scheme with status tiers (not on the POS wire: LoyaltyInfo has no tier field).',
  }),
});

const ProfileParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });

export const adminProfileRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;
  const { db } = ctx.database;

  app.post(
    '/merchants/:serviceUserName/profiles',
    {
      schema: {
        tags: ['Operator: consumers'],
        summary: 'Create a consumer profile with its balance configuration and tags',
        operationId: 'createProfile',
        params: Type.Object({ serviceUserName: Type.String() }),
        body: ProfileBody,
        response: {
          201: answer("The new profile's id.", Type.Object({ id: Type.Integer() }, { title: 'ProfileId' })),
          ...apiErrors({
            400: 'Body invalid (invalid_request).',
            404: 'Merchant unknown (not_found).',
            ...auth,
          }),
        },
      },
    },
    async (request, reply) => {
      const merchant = await findMerchantByName(db, request.params.serviceUserName);
      if (!merchant) throw new AppError('notFound', `No merchant "${request.params.serviceUserName}".`);
      const id = await createProfile(
        app.services.cards,
        { id: merchant.id, currency: merchant.currency },
        request.body,
      );
      return reply.code(201).send({ id });
    },
  );

  app.get(
    '/profiles/:id',
    {
      schema: {
        tags: ['Operator: consumers'],
        summary: 'Read a consumer profile: balance with configuration, tags, cards',
        operationId: 'readProfile',
        params: ProfileParams,
        response: {
          200: answer('The profile.', ProfileSchema),
          ...apiErrors({ 404: 'Profile unknown (not_found).', ...auth }),
        },
      },
    },
    async (request) => {
      const profile = await getProfile(app.services.cards, request.params.id);
      if (!profile) throw new AppError('notFound', 'No profile under this id.');
      return profile;
    },
  );

  app.post(
    '/profiles/:id/tokens',
    {
      schema: {
        tags: ['Operator: consumers'],
        summary: 'Link a card to a profile, registering it if it is new',
        operationId: 'linkProfileToken',
        description:
          'An unlinked customer card’s balance moves to the profile; from then on the card pays from ' +
          'the profile’s balance. A gift card keeps its own balance.',
        params: ProfileParams,
        body: Type.Object({
          tokenId: Type.String({ minLength: 1, maxLength: 200 }),
          tokenType: Type.Optional(
            Type.Union(
              [Type.Integer({ enum: [0, 1] }), Type.String({ enum: ['customer', 'gift', '0', '1'] })],
              {
                description: '0 or customer (default for a new card), 1 or gift.',
              },
            ),
          ),
        }),
        response: {
          200: answer(
            'The card, linked to the profile.',
            Type.Object(
              {
                tokenId: Type.String(),
                tokenType: Type.Integer(),
                state: Type.String(),
                profileId: Type.Integer(),
                balance: Type.Integer({ description: 'Minor units: the balance the card pays from.' }),
                currency: Type.String(),
              },
              { title: 'ProfileToken' },
            ),
          ),
          ...apiErrors({
            400: 'Body invalid, tokenType differs from the registered card (invalid_request); card locked or expired (card_locked).',
            404: 'Profile unknown (not_found).',
            409: 'The card is linked to another profile (conflict).',
            ...auth,
          }),
        },
      },
    },
    async (request) => {
      const raw = request.body.tokenType;
      const tokenType = raw === undefined ? null : parseTokenType(String(raw));
      return linkToken(app.services.cards, request.params.id, request.body.tokenId, tokenType);
    },
  );

  app.post(
    '/profiles/:id/otps',
    {
      schema: {
        tags: ['Operator: consumers'],
        summary: 'Issue a one-time password of a profile (lives 5 minutes)',
        operationId: 'createProfileOtp',
        params: ProfileParams,
        response: {
          201: answer(
            'The one-time password and when it expires.',
            Type.Object(
              { otp: Type.String(), expiresAt: Type.String({ format: 'date-time' }) },
              { title: 'Otp' },
            ),
          ),
          ...apiErrors({ 404: 'Profile unknown (not_found).', ...auth }),
        },
      },
    },
    async (request, reply) => {
      const { otp, expiresAtMs } = await createOtp(app.services.cards, request.params.id);
      return reply.code(201).send({ otp, expiresAt: new Date(expiresAtMs).toISOString() });
    },
  );
};
