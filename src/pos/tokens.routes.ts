import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { disposeCard, lockCard } from '../cards/card.service.js';
import { type TillBooking, bookTillBalance, cardCaller, registerTillCard } from '../cards/till-cards.js';
import { answer, auth } from '../wire/openapi.js';
import { posErrors } from '../wire/schemas.js';
import { AUTH_REFUSALS, callerUnit, unitCredentials, verifySecurityToken } from './route-auth.js';

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
    pattern: '^[^\\u0000-\\u001f\\u007f]+$',
    description:
      'Idempotency key: a repeat with the same transactionId books nothing and answers as the first time. ' +
      'No control characters.',
  }),
);

const common = {
  401: 'DevKey or trackingUnitId missing or wrong (1001, 1002); DevKey revoked (1043).',
  403: 'trackingUnit not activated (1004) or deactivated (1042).',
};

export const tokenRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  /** The booking checks its SecurityToken itself: its input depends on the merchant's setting. */
  const book = (request: FastifyRequest, booking: TillBooking) =>
    bookTillBalance(
      app.services.tillCards,
      unitCredentials(request),
      booking,
      (unit, input) => verifySecurityToken(request, unit, input),
      request.headers['securitytoken-v2'] === undefined,
    );

  app.post(
    '/tokens/:id',
    {
      config: { auth: 'activeUnit' },
      schema: {
        tags: ['POS: tokens'],
        summary: 'Register a customer or gift card',
        operationId: 'registerToken',
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
      const { unit } = callerUnit(request);
      return registerTillCard(app.services.cards, unit, request.params.id, request.query);
    },
  );

  app.post(
    '/tokens/:id/lock',
    {
      config: { auth: 'activeUnit' },
      schema: {
        tags: ['POS: tokens'],
        summary: 'Lock a card',
        operationId: 'lockToken',
        description:
          'The card becomes completely unusable. Locking a locked card answers it again. The POS interface ' +
          'has no unlock: only an owner in the merchant portal can unlock the card.',
        params: TokenParams,
        response: {
          200: answer('The locked card.', TokenSchema),
          ...posErrors({ 404: 'Card unknown (13000).', ...common }),
        },
      },
    },
    async (request) => {
      const { unit } = callerUnit(request);
      return lockCard(app.services.cards, cardCaller(unit), request.params.id);
    },
  );

  app.post(
    '/tokens/:id/dispose',
    {
      config: { auth: 'activeUnit' },
      schema: {
        tags: ['POS: tokens'],
        summary: 'Release a card',
        operationId: 'disposeToken',
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
      const { unit } = callerUnit(request);
      return disposeCard(app.services.cards, cardCaller(unit), request.params.id);
    },
  );

  const balanceErrors = posErrors({
    400:
      'Amount invalid (13006); card locked or expired (13002); insufficient balance (13003); ' +
      'above maxAmount or above the largest balance, 15 digits of minor units (13004); ' +
      'transactionId used for another operation (13007); transactionId missing where the merchant requires it (1041).',
    ...AUTH_REFUSALS.signedUnit,
    404: 'Card unknown (13000).',
    503: 'The card was too busy, or its terminal changed during the operation (1010); repeat with the same transactionId.',
  });
  const signing =
    ' A merchant that requires transactionIds (operator setting) answers 400 / 1041 without one, and then the ' +
    'MD5 input is the operation name, id, amount and transactionId, each on its own line (`withdrawBalance\\n4711\\n12.50\\ntill7-1`). Instead of the MD5 token, the header ' +
    '`SecurityToken-V2: t=<unix seconds>,s=<hex HMAC-SHA256>` may be sent (required for terminals the operator ' +
    'switched to it): the signature, keyed with the checksumSecret, covers METHOD "\\n" path-with-query "\\n" t "\\n" body; ' +
    't within 300 s of the server clock, each signature accepted once (docs/security.md has a worked example). ' +
    'The booking records which token authorised it.';

  app.post(
    '/tokens/:id/addBalance',
    {
      // The booking checks its SecurityToken itself: its input depends on the merchant's setting.
      config: { auth: 'rememberedUnit' },
      schema: {
        tags: ['POS: tokens'],
        summary: 'Add balance to a card (after the POS collected the money)',
        operationId: 'addTokenBalance',
        security: auth.unitSigned,
        description:
          'SecurityToken: MD5 of id + balanceToAdd (both exactly as in the URL, decoded) + "qPnsS14" + checksumSecret.' +
          signing,
        params: TokenParams,
        querystring: Type.Object({
          balanceToAdd: Type.String({ maxLength: 40, description: 'Decimal, > 0, at most two decimals.' }),
          transactionId: TransactionIdQuery,
        }),
        response: { 200: answer("The card's balance after the booking.", BalanceSchema), ...balanceErrors },
      },
    },
    async (request) => {
      const { balanceToAdd: amount, transactionId } = request.query;
      return book(request, { operation: 'top_up', tokenId: request.params.id, amount, transactionId });
    },
  );

  app.post(
    '/tokens/:id/withdrawBalance',
    {
      // The booking checks its SecurityToken itself: its input depends on the merchant's setting.
      config: { auth: 'rememberedUnit' },
      schema: {
        tags: ['POS: tokens'],
        summary: 'Withdraw balance from a card (offset against a bill)',
        operationId: 'withdrawTokenBalance',
        security: auth.unitSigned,
        description:
          'SecurityToken: MD5 of id + balanceToWithdraw (both exactly as in the URL, decoded) + "qPnsS14" + checksumSecret. ' +
          'Never takes a balance below zero, whatever runs concurrently.' +
          signing,
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
      const { balanceToWithdraw: amount, transactionId } = request.query;
      return book(request, { operation: 'withdrawal', tokenId: request.params.id, amount, transactionId });
    },
  );
};
