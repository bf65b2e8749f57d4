import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { MailAddress } from '../wire/documents/mail-address.schemas.js';
import { correctBalance } from '../cards/balance-correction.js';
import { lockCard } from '../cards/card.service.js';
import { unlockCard } from '../cards/card-unlock.service.js';
import { issueCardOtp } from '../cards/card-otp.service.js';
import { answer, auth } from '../wire/openapi.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import { CardSchema, ConsumerText, OWNER_ONLY, ProfileSchema, RequestId, portalErrors } from './schemas.js';
import { requireOwner, requireSession } from './session.js';
import { cardView, consumerSearchView, customerView } from './customer-views.js';
import { viewDeps } from './views.js';
import { changeProfileEmail } from '../cards/profile-email.service.js';
import { sendUndeliveredReceiptsAgain } from '../notifications/receipt-resend.service.js';
import { Nullable } from '../shared/nullable.js';

const TAG = 'Portal: cards';
const CardParams = Type.Object({ tokenId: Type.String({ minLength: 1, maxLength: 200 }) });
const UNKNOWN = "Card unknown, or another merchant's (card_unknown).";
const ProfileParams = Type.Object({ profileId: Type.Integer({ minimum: 1 }) });
const NO_CUSTOMER = "Customer unknown, or another merchant's (not_found).";

/** A lock's or unlock's optional reason; a request without a body gives none. */
const LockBody = Type.Object({
  reason: Type.Optional(
    Type.String({ maxLength: 500, description: "Why, shown in the card's history; optional." }),
  ),
});
// Called from a hook written in place (`async (request) => noBodyIsEmpty(request)`): given as the
// hook itself, its declared parameter took part in inferring the route's types, which cost the
// type check some 5 s of its 29 (docs/performance.md, "Test suite").
const noBodyIsEmpty = async (request: { body: unknown }) => {
  if (request.body === undefined || request.body === null) request.body = {};
};

export const portalCardRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = viewDeps(app);

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
    async (request) => cardView(deps, requireSession(request), request.params.tokenId),
  );

  app.get(
    '/profiles/:profileId',
    {
      schema: {
        tags: [TAG],
        summary: "A customer: its cards, points and balance with the balance's history",
        operationId: 'getPortalProfile',
        security: auth.portal,
        params: ProfileParams,
        response: {
          200: answer('The customer.', ProfileSchema),
          ...portalErrors({ 404: NO_CUSTOMER }),
        },
      },
    },
    async (request) => customerView(deps, requireSession(request), request.params.profileId),
  );

  app.put(
    '/profiles/:profileId/email',
    {
      schema: {
        tags: [TAG],
        summary: "Correct a customer's e-mail address (owners only)",
        operationId: 'changePortalProfileEmail',
        description:
          'Where their receipts and sign-in links go from now on. null removes the address. Who changed it, when, ' +
          'and from what are kept and shown in `emailChanges`; the address the profile has already changes nothing. ' +
          'A receipt refused at the old address can then be sent again (POST /baskets/{trackingUnitId}/{basketId}/receiptMail; ' +
          'docs/decisions.md, "A customer\'s e-mail address corrected").',
        security: auth.portalChange,
        params: ProfileParams,
        body: Type.Object(
          { email: Nullable(MailAddress({ maxLength: 320 })) },
          { title: 'PortalProfileEmail', additionalProperties: false },
        ),
        response: {
          200: answer('The customer, with its address as it is now.', ProfileSchema),
          ...portalErrors({
            400: 'The address is not one (invalid_request).',
            403: OWNER_ONLY,
            404: NO_CUSTOMER,
          }),
        },
      },
    },
    async (request) => {
      const s = requireOwner(request);
      await changeProfileEmail(deps.db, {
        merchantId: s.merchantId,
        profileId: request.params.profileId,
        portalUserId: s.userId,
        email: request.body.email,
        nowMs: deps.clock.nowMs(),
      });
      return customerView(deps, s, request.params.profileId);
    },
  );

  app.post(
    '/profiles/:profileId/receiptMails',
    {
      schema: {
        tags: [TAG],
        summary: "Send the customer's refused and given-up receipt mails again",
        operationId: 'sendPortalProfileReceiptsAgain',
        description:
          'Every receipt of its baskets and of its checkout orders paid from the balance whose mail was refused or ' +
          'given up (the newest 100, `undeliveredReceipts`), each as POST /baskets/{trackingUnitId}/{basketId}/receiptMail ' +
          'or POST /orders/{orderId}/receiptMail sends it: to the address as it is now, ' +
          'after an owner corrected it. Owners and staff alike (docs/decisions.md, "Sending the receipt again").',
        security: auth.portalChange,
        params: ProfileParams,
        response: {
          200: answer('The customer; the receipts sent again no longer count as undelivered.', ProfileSchema),
          ...portalErrors(
            {
              404: NO_CUSTOMER,
              409: 'Nobody to send them to: the customer has neither an e-mail address nor push (receipt_mail_nobody); nothing is sent.',
            },
            { change: true },
          ),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      // A foreign or unknown customer has no baskets of this merchant: nothing is sent, and the view is 404.
      const { profileId } = request.params;
      await sendUndeliveredReceiptsAgain(
        deps.db,
        { merchantId: s.merchantId, profileId },
        deps.clock.nowMs(),
      );
      return customerView(deps, s, profileId);
    },
  );

  app.post(
    '/cards/:tokenId/lock',
    {
      preValidation: async (request) => noBodyIsEmpty(request),
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
      return cardView(deps, s, request.params.tokenId);
    },
  );

  app.post(
    '/cards/:tokenId/unlock',
    {
      preValidation: async (request) => noBodyIsEmpty(request),
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
      return cardView(deps, s, request.params.tokenId);
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
            requestId: Type.Optional(
              RequestId(
                'A UUID made once per correction meant: sent again with the same card and amount it answers the first posting, never a second one; without it every request is a correction of its own.',
              ),
            ),
          },
          { title: 'PortalBalanceCorrection' },
        ),
        response: {
          200: answer('The card after the posting.', CardSchema),
          ...portalErrors({
            400: 'Body invalid, amount zero, balance insufficient or above its maximum, card locked (invalid_request, invalid_amount, insufficient_balance, above_maximum_balance, card_locked).',
            403: OWNER_ONLY,
            404: UNKNOWN,
            409: 'The requestId was used for another card or amount (request_id_reused).',
          }),
        },
      },
    },
    async (request) => {
      const s = requireOwner(request);
      const { amount, reason, requestId } = request.body;
      const tokenId = request.params.tokenId;
      // The reason is kept with the posting (docs/decisions.md, "Merchant portal").
      await correctBalance(
        app.services.cards,
        { merchantId: s.merchantId, currency: s.currency, unitId: null },
        { tokenId, amount, reason, portalUserId: s.userId, ...(requestId ? { requestId } : {}) },
      );
      return cardView(deps, s, tokenId);
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
        summary:
          'Find consumers by name or e-mail, or list them all, by id or by balance, with their balance and cards',
        operationId: 'searchPortalConsumers',
        security: auth.portal,
        querystring: Type.Object({
          q: Type.Optional(ConsumerText),
          sort: Type.Optional(
            Type.Union([Type.Literal('id'), Type.Literal('balance')], {
              description:
                'id (the default): oldest first. balance: the highest balance first, ties by id; a customer whose balance changes while the pages are read may be on two of them or on none (docs/decisions.md, "All customers, page by page").',
            }),
          ),
          ...pageQueryFields,
        }),
        response: {
          200: answer(
            'The consumers found (all without q), in the order asked (by id, oldest first, by default), a page at a time.',
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
    async (request) => consumerSearchView(deps, requireSession(request), request.query),
  );
};
