import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { correctBalance } from '../cards/balance-correction.js';
import { correctionReasons } from '../portal-users/portal-user.store.js';
import { lockCard } from '../cards/card.service.js';
import { unlockCard } from '../cards/card-unlock.service.js';
import { issueCardOtp } from '../cards/card-otp.service.js';
import { findCard } from '../cards/card.store.js';
import { cardHistory } from '../reports/card-history.js';
import { searchConsumers } from '../reports/consumer-search.store.js';
import { searchBaskets } from '../reports/basket-search.store.js';
import {
  type BalanceMovement,
  balanceMovements,
  cardPurchases,
  chargedOrders,
  profileView,
} from '../reports/customer.store.js';
import { AppError } from '../shared/errors.js';
import { pageOf, pageRequest } from '../shared/paging.js';
import { answer, auth } from '../wire/openapi.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import type { Session } from '../portal-users/portal-auth.service.js';
import { CardSchema, OWNER_ONLY, ProfileSchema, portalErrors } from './schemas.js';
import { requireOwner, requireSession } from './session.js';

const TAG = 'Portal: cards';
const CardParams = Type.Object({ tokenId: Type.String({ minLength: 1, maxLength: 200 }) });
const UNKNOWN = "Card unknown, or another merchant's (card_unknown).";

/** A lock's or unlock's optional reason; a request without a body gives none. */
const LockBody = Type.Object({
  reason: Type.Optional(
    Type.String({ maxLength: 500, description: "Why, shown in the card's history; optional." }),
  ),
});
const noBodyIsEmpty = async (request: { body: unknown }) => {
  if (request.body === undefined || request.body === null) request.body = {};
};

export const portalCardRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;

  async function view(s: Session, tokenId: string) {
    const card = await findCard(db, s.merchantId, tokenId);
    if (!card || card.state === 'released') throw new AppError('cardUnknown');
    const history = await cardHistory(app.services.reports, s.merchantId, card);
    const profile = card.profileId === null ? null : await profileView(db, s.merchantId, card.profileId);
    const holder = profile && {
      profileId: profile.profileId,
      fullName: profile.fullName,
      email: profile.email,
    };
    const purchases = await cardPurchases(db, s.merchantId, card, s.timeZone);
    const orders = card.profileId === null ? [] : await chargedOrders(db, s.merchantId, card.profileId, 10);
    const recent = await searchBaskets(db, {
      merchantId: s.merchantId,
      fromMs: null,
      toMs: null,
      outletId: null,
      trackingUnitId: null,
      card: card.tokenId,
      number: null,
      state: null,
      limit: 10,
      after: null,
    });
    const balanceHistory = await withCorrections(
      s.merchantId,
      await balanceMovements(db, s.merchantId, card.accountId),
    );
    const reasons = await correctionReasons(
      db,
      s.merchantId,
      history.transfers.map((t) => t.transactionId),
    );
    return {
      tokenId: card.tokenId,
      tokenType: card.tokenType === 1 ? ('gift' as const) : ('customer' as const),
      state: card.state,
      currency: card.currency,
      balanceMinor: Number(card.balanceMinor),
      profileId: card.profileId,
      points: history.points,
      transfers: history.transfers.map((t) => ({ ...t, reason: reasons.get(t.transactionId) ?? null })),
      pointsHistory: history.pointsHistory,
      locks: history.locks,
      otps: history.otps,
      holder,
      purchases,
      recentBaskets: recent.slice(0, 10),
      recentOrders: orders,
      balanceHistory,
    };
  }

  app.get(
    '/cards/:tokenId',
    {
      schema: {
        tags: [TAG],
        summary: 'A card: state, balance and points with their history',
        operationId: 'getPortalCard',
        security: auth.portal,
        params: CardParams,
        response: { 200: answer('The card.', CardSchema), ...portalErrors({ 404: UNKNOWN }) },
      },
    },
    async (request) => view(requireSession(request), request.params.tokenId),
  );

  app.get(
    '/profiles/:profileId',
    {
      schema: {
        tags: [TAG],
        summary: "A customer: its cards, points and balance with the balance's history",
        operationId: 'getPortalProfile',
        security: auth.portal,
        params: Type.Object({ profileId: Type.Integer({ minimum: 1 }) }),
        response: {
          200: answer('The customer.', ProfileSchema),
          ...portalErrors({ 404: "Customer unknown, or another merchant's (not_found)." }),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const p = await profileView(db, s.merchantId, request.params.profileId);
      if (!p) throw new AppError('notFound', 'No customer under this id.');
      const first = p.cards[0];
      const points = first
        ? (
            await cardHistory(app.services.reports, s.merchantId, {
              cardId: await cardIdOf(s.merchantId, first.tokenId),
              tokenId: first.tokenId,
              profileId: p.profileId,
            })
          ).points
        : 0;
      const { accountId, ...rest } = p;
      const balanceHistory = await withCorrections(
        s.merchantId,
        await balanceMovements(db, s.merchantId, accountId),
      );
      return { ...rest, points, balanceHistory };
    },
  );

  /** A portal correction is booked as the operator's; its recorded reason tells it apart. */
  async function withCorrections(merchantId: number, movements: BalanceMovement[]) {
    const reasons = await correctionReasons(
      db,
      merchantId,
      movements.map((m) => m.transactionId),
    );
    return movements.map((m) => {
      const corrected = reasons.has(m.transactionId);
      return {
        ...m,
        channel: corrected ? ('portal' as const) : m.channel,
        reason: reasons.get(m.transactionId) ?? null,
      };
    });
  }

  async function cardIdOf(merchantId: number, tokenId: string): Promise<number> {
    const card = await findCard(db, merchantId, tokenId);
    if (!card) throw new AppError('cardUnknown');
    return card.cardId;
  }

  app.post(
    '/cards/:tokenId/lock',
    {
      preValidation: noBodyIsEmpty,
      schema: {
        tags: [TAG],
        summary: 'Lock a card (owners only): the POS refuses it from then on (11005)',
        operationId: 'lockPortalCard',
        description:
          'As the POS interface’s lock: the card’s own account is closed, its balance kept. Only an owner ' +
          'in the portal can unlock it again. Who locked it, when, and the reason if given are kept and shown in `locks`.',
        security: auth.portalChange,
        params: CardParams,
        body: LockBody,
        response: {
          200: answer('The card, locked.', CardSchema),
          ...portalErrors({ 403: OWNER_ONLY, 404: UNKNOWN }),
        },
      },
    },
    async (request) => {
      const s = requireOwner(request);
      await lockCard(
        app.services.cards,
        { merchantId: s.merchantId, currency: s.currency, unitId: null },
        request.params.tokenId,
        { portalUserId: s.userId, reason: request.body.reason ?? null },
      );
      return view(s, request.params.tokenId);
    },
  );

  app.post(
    '/cards/:tokenId/unlock',
    {
      preValidation: noBodyIsEmpty,
      schema: {
        tags: [TAG],
        summary: 'Unlock a locked card (owners only): the POS accepts it again',
        operationId: 'unlockPortalCard',
        description:
          'The inverse of lock: the card is registered again and its own account (when it pays from it) ' +
          'open again, with its balance as it was. Who unlocked it, when, and the reason if given are kept and shown in `locks`. ' +
          'A card that is not locked is answered as it is. The POS interface has no unlock.',
        security: auth.portalChange,
        params: CardParams,
        body: LockBody,
        response: {
          200: answer('The card, unlocked.', CardSchema),
          ...portalErrors({ 403: OWNER_ONLY, 404: UNKNOWN }),
        },
      },
    },
    async (request) => {
      const s = requireOwner(request);
      await unlockCard(app.services.cards, s.merchantId, request.params.tokenId, {
        portalUserId: s.userId,
        reason: request.body.reason ?? null,
      });
      return view(s, request.params.tokenId);
    },
  );

  app.post(
    '/cards/:tokenId/corrections',
    {
      schema: {
        tags: [TAG],
        summary: 'Correct a balance with a reason (owners only): a posting on the ledger, never an edit',
        operationId: 'correctPortalCardBalance',
        security: auth.portalChange,
        params: CardParams,
        body: Type.Object(
          {
            amount: Type.String({
              pattern: '^-?[0-9]{1,12}([.][0-9]{1,4})?$',
              description: 'Major units; positive books a top-up, negative a withdrawal ("-2.50").',
            }),
            reason: Type.String({ minLength: 3, maxLength: 500 }),
          },
          { title: 'PortalBalanceCorrection' },
        ),
        response: {
          200: answer('The card after the posting.', CardSchema),
          ...portalErrors({
            400: 'Body invalid, amount zero, balance insufficient or above its maximum, card locked (invalid_request, invalid_amount, insufficient_balance, above_maximum_balance, card_locked).',
            403: OWNER_ONLY,
            404: UNKNOWN,
          }),
        },
      },
    },
    async (request) => {
      const s = requireOwner(request);
      const { amount, reason } = request.body;
      const tokenId = request.params.tokenId;
      // The reason is kept with the posting (docs/decisions.md, "Merchant portal").
      await correctBalance(
        app.services.cards,
        { merchantId: s.merchantId, currency: s.currency, unitId: null },
        { tokenId, amount, reason, portalUserId: s.userId },
      );
      return view(s, tokenId);
    },
  );

  app.post(
    '/cards/:tokenId/otps',
    {
      schema: {
        tags: [TAG],
        summary:
          "Issue a one-time password for the consumer of a customer card (owners only; the card's profile)",
        operationId: 'issuePortalCardOtp',
        description:
          'The consumer gives it at the till instead of the card, and it pays from their balance as the card ' +
          'does. Answered this once. Only an owner may issue one; who issued it and when are kept and shown in ' +
          "the card's `otps` (never the password). Only for a usable customer card linked to a consumer profile.",
        security: auth.portalChange,
        params: CardParams,
        response: {
          201: answer(
            'The one-time password and when it expires.',
            Type.Object(
              { otp: Type.String(), expiresAt: Type.String({ format: 'date-time' }) },
              { title: 'PortalOtp' },
            ),
          ),
          ...portalErrors(
            {
              400: 'The card is locked or expired (card_locked).',
              403: OWNER_ONLY,
              404: "Card unknown, another merchant's, a gift card, or not linked to a consumer profile (card_unknown).",
            },
            { change: true },
          ),
        },
      },
    },
    async (request, reply) => {
      const s = requireOwner(request);
      const issued = await issueCardOtp(app.services.cards, s.merchantId, request.params.tokenId, s.userId);
      return reply.code(201).send({ otp: issued.otp, expiresAt: new Date(issued.expiresAtMs).toISOString() });
    },
  );

  app.get(
    '/consumers',
    {
      schema: {
        tags: [TAG],
        summary: 'Find consumers by name or e-mail, with their balance and cards',
        operationId: 'searchPortalConsumers',
        security: auth.portal,
        querystring: Type.Object({
          q: Type.String({ minLength: 2, maxLength: 100, description: 'Part of the name or e-mail.' }),
          ...pageQueryFields,
        }),
        response: {
          200: answer(
            'The consumers found, by id, a page at a time.',
            PageOf(
              Type.Object(
                {
                  profileId: Type.Integer(),
                  fullName: Type.Union([Type.String(), Type.Null()]),
                  email: Type.Union([Type.String(), Type.Null()]),
                  balanceMinor: Type.Integer(),
                  currency: Type.String(),
                  cards: Type.Array(Type.String()),
                },
                { title: 'PortalConsumer' },
              ),
              'PortalConsumerPage',
            ),
          ),
          ...portalErrors({
            400: `Query invalid: q of fewer than 2 characters (invalid_request). ${pageErrors[400]}`,
          }),
        },
      },
    },
    async (request) => {
      const page = pageRequest('consumers', request.query, 1);
      const rows = await searchConsumers(db, requireSession(request).merchantId, request.query.q, page);
      return pageOf(
        'consumers',
        rows,
        page.limit,
        (c) => [c.profileId],
        (c) => c,
      );
    },
  );
};
