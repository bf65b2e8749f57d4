import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { changeBalance, disposeCard, lockCard, parseTokenType, registerCard } from '../cards/card.service.js';
import { AppError } from '../shared/errors.js';
import { parseInstant } from '../shared/time.js';
import { answer, auth } from '../wire/openapi.js';
import { posErrors } from '../wire/schemas.js';
import { type AuthenticatedUnit, authenticateActiveUnit, verifySecurityToken } from './auth.js';

const TokenParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200, description: 'The identifier read from the card.' }),
});

const TokenSchema = Type.Object(
  {
    TokenId: Type.String(),
    TokenType: Type.Integer({ description: '0 = customer card, 1 = gift card.' }),
    State: Type.String({ description: 'registered, locked, released or expired.' }),
    Balance: Type.Number({
      description: 'Balance the card pays from (a linked customer card: the profile).',
    }),
    CurrencyISO: Type.String(),
  },
  { xml: { name: 'Token' }, title: 'Token' },
);

const BalanceSchema = Type.Object(
  {
    TokenId: Type.String(),
    Balance: Type.Number(),
    CurrencyISO: Type.String(),
    TransactionId: Type.String({ description: 'The transactionId sent, or one the service made.' }),
  },
  { xml: { name: 'TokenBalance' }, title: 'TokenBalance' },
);

const TransactionIdQuery = Type.Optional(
  Type.String({
    minLength: 1,
    maxLength: 100,
    description:
      'Idempotency key: a repeat with the same transactionId books nothing and answers as the first time.',
  }),
);

const common = {
  401: 'DevKey or trackingUnitId missing or wrong (1001, 1002).',
  403: 'trackingUnit not activated (1004).',
};

function caller(unit: AuthenticatedUnit) {
  return { merchantId: unit.merchantId, currency: unit.currency, unitId: unit.unitId };
}

export const tokenRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.post(
    '/tokens/:id',
    {
      schema: {
        tags: ['POS: tokens'],
        summary: 'Register a customer or gift card',
        operationId: 'registerToken',
        security: auth.unit,
        description:
          'tokentype 0 or customer (default), 1 or gift. A released id can be registered again; ' +
          'expiresAt (ISO 8601) makes the card expired after that instant.',
        params: TokenParams,
        querystring: Type.Object({
          tokentype: Type.Optional(Type.String({ maxLength: 20 })),
          expiresAt: Type.Optional(Type.String({ maxLength: 40 })),
        }),
        response: {
          200: answer('The registered card.', TokenSchema),
          ...posErrors({
            400: 'tokentype or expiresAt invalid (1000); id registered, locked or expired (13001).',
            ...common,
          }),
        },
      },
    },
    async (request) => {
      const unit = await authenticateActiveUnit(ctx, request);
      const tokenType = parseTokenType(request.query.tokentype);
      if (tokenType === null) throw new AppError('invalidBody', 'tokentype must be 0, 1, customer or gift.');
      let expiresAtMs: number | null = null;
      if (request.query.expiresAt !== undefined && request.query.expiresAt !== '') {
        const instant = parseInstant(request.query.expiresAt, unit.timeZone);
        if (!instant) throw new AppError('invalidBody', 'expiresAt must be an ISO 8601 date-time.');
        expiresAtMs = instant.utcMs;
      }
      return registerCard(
        ctx.database.db,
        caller(unit),
        request.params.id,
        tokenType,
        expiresAtMs,
        ctx.clock.nowMs(),
      );
    },
  );

  app.post(
    '/tokens/:id/lock',
    {
      schema: {
        tags: ['POS: tokens'],
        summary: 'Lock a card (final)',
        operationId: 'lockToken',
        security: auth.unit,
        description: 'The card becomes completely unusable. Locking a locked card answers it again.',
        params: TokenParams,
        response: {
          200: answer('The locked card.', TokenSchema),
          ...posErrors({ 404: 'Card unknown (13000).', ...common }),
        },
      },
    },
    async (request) => {
      const unit = await authenticateActiveUnit(ctx, request);
      return lockCard(ctx.database.db, caller(unit), request.params.id, ctx.clock.nowMs());
    },
  );

  app.post(
    '/tokens/:id/dispose',
    {
      schema: {
        tags: ['POS: tokens'],
        summary: 'Release a card',
        operationId: 'disposeToken',
        security: auth.unit,
        description:
          'The card is detached from its profile (points and the profile balance stay with the profile) ' +
          'and can be registered again. The card’s own balance must be zero.',
        params: TokenParams,
        response: {
          200: answer('The released card.', TokenSchema),
          ...posErrors({
            400: 'Card locked (13002); own balance not zero (13005).',
            404: 'Card unknown (13000).',
            ...common,
          }),
        },
      },
    },
    async (request) => {
      const unit = await authenticateActiveUnit(ctx, request);
      return disposeCard(ctx.database.db, caller(unit), request.params.id, ctx.clock.nowMs());
    },
  );

  const balanceErrors = posErrors({
    400:
      'Amount invalid (13006); card locked or expired (13002); insufficient balance (13003); ' +
      'above maxAmount or above the largest balance, 15 digits of minor units (13004); ' +
      'transactionId used for another operation (13007).',
    401: 'DevKey, trackingUnitId or SecurityToken missing or wrong (1001, 1002, 1003).',
    403: common[403],
    404: 'Card unknown (13000).',
  });

  app.post(
    '/tokens/:id/addBalance',
    {
      schema: {
        tags: ['POS: tokens'],
        summary: 'Add balance to a card (after the POS collected the money)',
        operationId: 'addTokenBalance',
        security: auth.unitSigned,
        description:
          'SecurityToken: MD5 of id + balanceToAdd (both exactly as in the URL, decoded) + "qPnsS14" + checksumSecret.',
        params: TokenParams,
        querystring: Type.Object({
          balanceToAdd: Type.String({ maxLength: 40, description: 'Decimal, > 0, at most two decimals.' }),
          transactionId: TransactionIdQuery,
        }),
        response: { 200: answer("The card's balance after the booking.", BalanceSchema), ...balanceErrors },
      },
    },
    async (request) => {
      const unit = await authenticateActiveUnit(ctx, request);
      verifySecurityToken(request, unit, `${request.params.id}${request.query.balanceToAdd}`);
      return changeBalance(
        ctx.database.db,
        caller(unit),
        'top_up',
        request.params.id,
        request.query.balanceToAdd,
        request.query.transactionId,
        ctx.clock.nowMs(),
      );
    },
  );

  app.post(
    '/tokens/:id/withdrawBalance',
    {
      schema: {
        tags: ['POS: tokens'],
        summary: 'Withdraw balance from a card (offset against a bill)',
        operationId: 'withdrawTokenBalance',
        security: auth.unitSigned,
        description:
          'SecurityToken: MD5 of id + balanceToWithdraw (both exactly as in the URL, decoded) + "qPnsS14" + checksumSecret. ' +
          'Never takes a balance below zero, whatever runs concurrently.',
        params: TokenParams,
        querystring: Type.Object({
          balanceToWithdraw: Type.String({
            maxLength: 40,
            description: 'Decimal, > 0, at most two decimals.',
          }),
          transactionId: TransactionIdQuery,
        }),
        response: { 200: answer("The card's balance after the booking.", BalanceSchema), ...balanceErrors },
      },
    },
    async (request) => {
      const unit = await authenticateActiveUnit(ctx, request);
      verifySecurityToken(request, unit, `${request.params.id}${request.query.balanceToWithdraw}`);
      return changeBalance(
        ctx.database.db,
        caller(unit),
        'withdrawal',
        request.params.id,
        request.query.balanceToWithdraw,
        request.query.transactionId,
        ctx.clock.nowMs(),
      );
    },
  );
};
