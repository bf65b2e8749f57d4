import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { MailAddress } from '../wire/documents/mail-address.schemas.js';
import { enrolCustomer, linkCardInPortal } from '../cards/enrolment.service.js';
import { changeProfileDetails } from '../cards/profile-details.service.js';
import { sendWelcomeMailAgain } from '../notifications/welcome-resend.service.js';
import { answer, auth } from '../wire/openapi.js';
import { ProfileSchema, RequestId, portalErrors } from './schemas.js';
import { requireSession } from './session.js';
import { customerView } from './customer-views.js';
import { viewDeps } from './views.js';

const TAG = 'Portal: cards';
const ProfileParams = Type.Object({ profileId: Type.Integer({ minimum: 1 }) });
const MailLanguage = (description: string) =>
  Type.Optional(Type.Union([Type.Literal('de'), Type.Literal('en')], { description }));
const TokenId = Type.String({
  minLength: 1,
  maxLength: 200,
  pattern: '\\S',
  description:
    "The card's id as printed on it (the till's consumerIdentToken); a new id is registered as a customer card.",
});

/**
 * Customers enrolled and cards linked at the counter, by owners and staff alike (docs/decisions.md,
 * "Enrolling a customer in the portal").
 */
export const portalCustomerRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = viewDeps(app);

  app.post(
    '/profiles',
    {
      schema: {
        tags: [TAG],
        summary: 'Enrol a customer, with a card when one is given (owners and staff)',
        operationId: 'enrolPortalCustomer',
        description:
          'The profile, its balance and the card linked to it are made in one transaction: a card that cannot be ' +
          'linked (locked, or linked to another customer) leaves no customer behind. A name or an e-mail address ' +
          "is needed; an address another of the merchant's customers has is refused. Sent again with the same " +
          'requestId and fields, it answers the customer the first request made.',
        security: auth.portalChange,
        body: Type.Object(
          {
            fullName: Type.Optional(Type.String({ maxLength: 200 })),
            email: Type.Optional(MailAddress({ maxLength: 320, surroundingSpace: true })),
            language: MailLanguage(
              "The language of their receipts and mails; without it, the receipt's (German for a merchant in a German-speaking time zone, else English).",
            ),
            tokenId: Type.Optional(TokenId),
            welcomeMail: Type.Optional(
              Type.Boolean({
                description:
                  'Mail the customer a welcome: their card, balance and points and the way to their own page (/me), in their language. Only with an e-mail address; without one nothing is sent. Default false.',
              }),
            ),
            requestId: RequestId(
              'A UUID made once per customer meant (the page makes one with each form it shows): sent again, the request answers the customer it made.',
            ),
          },
          { title: 'PortalEnrolment', additionalProperties: false },
        ),
        response: {
          201: answer(
            'The customer: made now, or by the first request of this requestId.',
            Type.Object({ id: Type.Integer() }, { title: 'PortalEnrolled' }),
          ),
          ...portalErrors(
            {
              400: 'Body invalid, neither name nor e-mail address, the card is locked or expired (invalid_request, card_locked).',
              409: 'Another customer has this e-mail address (profile_email_taken, details.profileId); the card is linked to another customer (conflict); the requestId was used with other fields (request_id_reused). Nothing is made.',
            },
            { change: true },
          ),
        },
      },
    },
    async (request, reply) => {
      const s = requireSession(request);
      const { body } = request;
      const id = await enrolCustomer(
        deps,
        { id: s.merchantId, currency: s.currency },
        {
          fullName: body.fullName ?? null,
          email: body.email ?? null,
          language: body.language ?? null,
          tokenId: body.tokenId ?? null,
          welcomeMail: body.welcomeMail ?? false,
          requestId: body.requestId,
          portalUserId: s.userId,
        },
      );
      app.services.outbox.dispatcher.nudge();
      return reply.code(201).send({ id });
    },
  );

  app.post(
    '/profiles/:profileId/cards',
    {
      schema: {
        tags: [TAG],
        summary: 'Link a card to a customer (owners and staff)',
        operationId: 'linkPortalCustomerCard',
        description:
          "A new id is registered as a customer card. An unlinked customer card's balance and points move to the " +
          "customer, and the card pays from the customer's balance from then on; a gift card keeps its own. " +
          'A card linked to this customer already changes nothing.',
        security: auth.portalChange,
        params: ProfileParams,
        body: Type.Object({ tokenId: TokenId }, { title: 'PortalCardLink', additionalProperties: false }),
        response: {
          200: answer('The customer with the card.', ProfileSchema),
          ...portalErrors(
            {
              400: 'Body invalid, or the card is locked or expired (invalid_request, card_locked).',
              404: "Customer unknown, or another merchant's (not_found).",
              409: 'The card is linked to another customer (conflict); nothing changes.',
            },
            { change: true },
          ),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const { profileId } = request.params;
      await linkCardInPortal(deps, s.merchantId, profileId, request.body.tokenId);
      return customerView(deps, s, profileId);
    },
  );

  app.put(
    '/profiles/:profileId/details',
    {
      schema: {
        tags: [TAG],
        summary: "Set a customer's name and the language of their mails (owners and staff)",
        operationId: 'setPortalProfileDetails',
        description:
          'Both as given: a name left out or blank removes it; a language left out leaves the customer none of their own ' +
          "(their mails then take the receipt's: German for a merchant in a German-speaking time zone, else English). " +
          'A customer keeps a name or an e-mail address, so removing the name of a customer without an address ' +
          'is refused. The address is corrected by PUT /profiles/{profileId}/email (owners only; docs/decisions.md, "A customer\'s ' +
          'name and language changed in the portal").',
        security: auth.portalChange,
        params: ProfileParams,
        body: Type.Object(
          {
            fullName: Type.Optional(Type.String({ maxLength: 200 })),
            language: MailLanguage('The language of their receipts, mails and own page.'),
          },
          { title: 'PortalProfileDetails', additionalProperties: false },
        ),
        response: {
          200: answer('The customer with its name and language as they are now.', ProfileSchema),
          ...portalErrors(
            {
              400: 'Body invalid, or the name removed from a customer without an e-mail address (invalid_request); nothing changes.',
              404: "Customer unknown, or another merchant's (not_found).",
            },
            { change: true },
          ),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const { profileId } = request.params;
      await changeProfileDetails(deps.db, {
        merchantId: s.merchantId,
        profileId,
        fullName: request.body.fullName ?? null,
        language: request.body.language ?? null,
      });
      return customerView(deps, s, profileId);
    },
  );

  app.post(
    '/profiles/:profileId/welcomeMail',
    {
      schema: {
        tags: [TAG],
        summary: 'Send the customer their welcome mail (again) (owners and staff)',
        operationId: 'sendPortalWelcomeMail',
        description:
          'A new welcome mail, due now, to the address the customer has when it is sent, with their cards, balance ' +
          'and points as they are then: after an owner corrected a mistyped address, or for a customer who got none ' +
          '(enrolled without it, or before they had an address). `welcomeMail` in the answer then describes the new ' +
          'mail. Refused, sending nothing, while the last one is still on its way and when the customer has no ' +
          'address (docs/decisions.md, "The welcome mail sent again").',
        security: auth.portalChange,
        params: ProfileParams,
        response: {
          200: answer('The customer; `welcomeMail` is the mail now queued.', ProfileSchema),
          ...portalErrors(
            {
              404: "Customer unknown, or another merchant's (not_found).",
              409: 'The last welcome mail is still on its way (welcome_mail_pending); the customer has no e-mail address (welcome_mail_no_address). Nothing is sent.',
            },
            { change: true },
          ),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const { profileId } = request.params;
      await sendWelcomeMailAgain(deps.db, { merchantId: s.merchantId, profileId }, deps.clock.nowMs());
      app.services.outbox.dispatcher.nudge();
      return customerView(deps, s, profileId);
    },
  );
};
