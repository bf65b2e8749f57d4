import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { addPortalUser } from '../portal-users/portal-team.service.js';
import { composeInvitationMail, mailAfterAnswer } from '../notifications/portal-link-mail.js';
import { findMerchantByName } from '../merchants/merchant.store.js';
import { AppError } from '../shared/errors.js';
import { answer } from '../wire/openapi.js';
import { PortalUserBodySchema, PortalUserSchema } from '../wire/documents/portal-user.schemas.js';
import { apiErrors } from '../wire/schemas.js';

export const adminPortalUserRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;

  app.post(
    '/merchants/:serviceUserName/portalUsers',
    {
      schema: {
        tags: ['Operator: merchants'],
        summary: "Create a user of the merchant's portal (/portal)",
        operationId: 'createPortalUser',
        description:
          'The password is stored as an scrypt hash. The e-mail is unique across merchants. The first user of a ' +
          'merchant is an owner unless `role` says otherwise; staff may view everything but change only terminals. ' +
          'Without a password the user is mailed a link to choose their own, valid once for 7 days (the mail in ' +
          '`lang`, else English), so that nobody but them ever knows it.',
        params: Type.Object({ serviceUserName: Type.String() }),
        body: PortalUserBodySchema,
        response: {
          201: answer('The new portal user.', PortalUserSchema),
          ...apiErrors({
            400: 'Body invalid or password shorter than 10 characters (invalid_request, password_too_short).',
            401: 'Authorization missing or wrong (unauthorized).',
            404: 'Merchant unknown (not_found).',
            409: 'A portal user with this e-mail exists (portal_user_exists).',
            429:
              'Without a password: 3 invitations to this address, or 20 of the merchant, in the last 24 hours; ' +
              'retry after Retry-After seconds (invitations_throttled).',
          }),
        },
      },
    },
    async (request, reply) => {
      const merchant = await findMerchantByName(db, request.params.serviceUserName);
      if (!merchant) throw new AppError('notFound', `No merchant "${request.params.serviceUserName}".`);
      const { user, link } = await addPortalUser(app.services.accounts, merchant.id, request.body);
      if (link) {
        const url = `${app.ctx.config.publicBaseUrl}/portal/reset/${link.token}`;
        await mailAfterAnswer(
          app.services.notifications,
          composeInvitationMail(link.target, url, null, 'en'),
          (err) => request.log.warn({ err }, 'invitation mail not sent'),
        );
      }
      return reply.code(201).send({ ...user, invited: link !== null });
    },
  );
};
