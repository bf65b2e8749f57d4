import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import {
  type BalanceOperation,
  type BalanceResponse,
  TerminalChanged,
  changeBalance,
  disposeCard,
  lockCard,
  parseTokenType,
  registerCard,
} from '../cards/card.service.js';
import { AppError } from '../shared/errors.js';
import { parseInstant } from '../shared/time.js';
import { answer, auth } from '../wire/openapi.js';
import { posErrors } from '../wire/schemas.js';
import type { AppContext } from '../context.js';
import { type AuthenticatedUnit, onRememberedUnit, verifySecurityToken } from './auth.js';
import { callerUnit } from './route-auth.js';

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

/**
 * The MD5 SecurityToken input of addBalance and withdrawBalance: id + amount as in the URL. A
 * merchant that requires transactionIds makes it operation, id, amount and transactionId, each
 * on its own line (`addBalance\n4711\n12.50\ntill7-1`), so that a token seen once authorises
 * that one booking and nothing else: the same transactionId again books nothing, another one or
 * the other operation needs another token, and no grant or return token of a real bill number
 * fits (docs/decisions.md, "SecurityTokens and credentials"). Without a transactionId there:
 * 400 / 1041.
 */
function balanceTokenInput(
  unit: AuthenticatedUnit,
  operation: 'addBalance' | 'withdrawBalance',
  id: string,
  amount: string,
  transactionId?: string,
): string {
  if (!unit.requireTransactionId) return `${id}${amount}`;
  if (transactionId === undefined || transactionId === '') throw new AppError('transactionIdRequired');
  return `${operation}\n${id}\n${amount}\n${transactionId}`;
}

function caller(unit: AuthenticatedUnit) {
  return { merchantId: unit.merchantId, currency: unit.currency, unitId: unit.unitId };
}

/**
 * addBalance / withdrawBalance, authenticated and booked. An MD5-signed request may start from a
 * remembered answer about its terminal (one statement per booking, the hot path of the tills):
 * the booking statement re-checks that answer, and anything else than a booking made on it (a
 * refusal, a wrong token, a changed terminal, the answer to a repeated transactionId) is decided
 * again on a fresh lookup, so a revoked key, a deactivated terminal or a rotated secret holds at
 * once. A SecurityToken-V2 request spends its signature, so it is checked once, on a fresh lookup.
 */
async function bookBalance(
  ctx: AppContext,
  request: FastifyRequest,
  operation: BalanceOperation,
  id: string,
  amount: string,
  transactionId: string | undefined,
): Promise<BalanceResponse> {
  const name = operation === 'top_up' ? 'addBalance' : 'withdrawBalance';
  const book = async (unit: AuthenticatedUnit, remembered: boolean) => {
    const token = await verifySecurityToken(
      request,
      unit,
      balanceTokenInput(unit, name, id, amount, transactionId),
    );
    return changeBalance(
      ctx.database.db,
      caller(unit),
      operation,
      id,
      amount,
      transactionId,
      ctx.clock.nowMs(),
      { by: token.scheme, sha256: token.sha256 },
      {
        devKeyId: unit.devKeyId,
        checksumSecret: unit.checksumSecret,
        requireSecurityTokenV2: unit.requireSecurityTokenV2,
        requireTransactionId: unit.requireTransactionId,
        remembered,
      },
    );
  };
  return onRememberedUnit(ctx, request, callerUnit(request), book, (err) => err instanceof TerminalChanged);
}

export const tokenRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { ctx } = app;

  app.post(
    '/tokens/:id',
    {
      config: { auth: 'activeUnit' },
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
      const { unit } = callerUnit(request);
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
      config: { auth: 'activeUnit' },
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
      const { unit } = callerUnit(request);
      return lockCard(ctx.database.db, caller(unit), request.params.id, ctx.clock.nowMs());
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
      const { unit } = callerUnit(request);
      return disposeCard(ctx.database.db, caller(unit), request.params.id, ctx.clock.nowMs());
    },
  );

  const balanceErrors = posErrors({
    400:
      'Amount invalid (13006); card locked or expired (13002); insufficient balance (13003); ' +
      'above maxAmount or above the largest balance, 15 digits of minor units (13004); ' +
      'transactionId used for another operation (13007); transactionId missing where the merchant requires it (1041).',
    401:
      'DevKey, trackingUnitId or SecurityToken missing or wrong (1001, 1002, 1003); DevKey revoked (1043); ' +
      'SecurityToken-V2 required (1044), malformed or wrong (1045), outside 300 s (1046) or seen before (1047).',
    403: 'trackingUnit not activated (1004) or deactivated (1042).',
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
      return bookBalance(ctx, request, 'top_up', request.params.id, amount, transactionId);
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
      return bookBalance(ctx, request, 'withdrawal', request.params.id, amount, transactionId);
    },
  );
};
