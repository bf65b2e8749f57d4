import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import { type AccountDeps, type Session, tokenHash } from '../portal-users/portal-auth.service.js';
import {
  type Invitation,
  changeOwnPassword,
  changeRole,
  inviteColleague,
  removeColleague,
  resendInvitation,
  setColleaguePassword,
  teamOf,
} from '../portal-users/portal-team.service.js';
import { AppError } from '../shared/errors.js';
import {
  PortalColleagueBodySchema,
  PortalColleagueSchema,
  PortalTeamMemberSchema,
} from '../wire/documents/portal-user.schemas.js';
import { answer, auth } from '../wire/openapi.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import { type Page, pageOf, pageRequest } from '../shared/paging.js';
import { OWNER_ONLY, portalErrors } from './schemas.js';
import { SESSION_COOKIE, readCookie, requireOwner, requireSession } from './session.js';
import { langOf } from './i18n.js';
import { composeInvitationMail, mailAfterAnswer } from '../notifications/portal-link-mail.js';

const TAG = 'Portal: team';

/** A page of the team as the API answers it and the settings page shows it. */
export async function teamView(
  accounts: AccountDeps,
  session: Session,
  query: { limit?: number; cursor?: string },
): Promise<Page<Static<typeof PortalTeamMemberSchema>>> {
  const page = pageRequest('users', query, ['number']);
  return pageOf(
    'users',
    await teamOf(accounts, session, page),
    page.limit,
    (m) => [m.id],
    (m) => ({
      id: m.id,
      email: m.email,
      role: m.role,
      createdAt: m.createdAt.toISOString(),
      lastSignedInAt: m.lastSignedInAt?.toISOString() ?? null,
      locked: m.locked,
      you: m.you,
      invitedAt: m.invitedAt?.toISOString() ?? null,
      invitationOpenUntil: m.invitationOpenUntil?.toISOString() ?? null,
    }),
  );
}

const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const Password = Type.String({ minLength: 1, maxLength: 200, description: 'At least 10 characters.' });
const COLLEAGUE = {
  400: 'id or body invalid (invalid_request), or the password shorter than 10 characters (password_too_short).',
  403: OWNER_ONLY,
  404: "No user of the merchant has this id: unknown, removed, or another merchant's (not_found).",
  409: "The id is the signed-in user's own (portal_user_self): another owner changes it.",
};

/**
 * The merchant's team (docs/decisions.md, "The team: colleagues and passwords"): every user sees
 * it; owners invite colleagues, change their roles, set their passwords and remove them; each user
 * changes their own password.
 */
export const portalTeamRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { accounts, notifications } = app.services;
  const base = app.ctx.config.publicBaseUrl;

  /** An invitation's link mailed after the answer, in the colleague's language, else the owner's. */
  const mailInvitation = async (
    request: FastifyRequest,
    s: Session,
    link: NonNullable<Invitation['link']>,
  ) => {
    const fallback = s.lang ?? langOf(null, request.headers['accept-language']);
    const url = `${base}/portal/reset/${link.token}`;
    await mailAfterAnswer(notifications, composeInvitationMail(link.target, url, s.email, fallback), (err) =>
      request.log.warn({ err }, 'invitation mail not sent'),
    );
  };

  app.get(
    '/users',
    {
      schema: {
        tags: [TAG],
        summary: "The merchant's portal users: who has access, with which role, and when they last signed in",
        operationId: 'listPortalTeam',
        description: 'Oldest first, a page at a time. Removed users are not listed.',
        security: auth.portal,
        querystring: Type.Object(pageQueryFields),
        response: {
          200: answer('The team.', PageOf(PortalTeamMemberSchema, 'PortalTeamPage')),
          ...portalErrors(pageErrors),
        },
      },
    },
    async (request) => teamView(accounts, requireSession(request), request.query),
  );

  app.post(
    '/users',
    {
      schema: {
        tags: [TAG],
        summary: 'Invite a colleague: create another portal user of the merchant (owners only)',
        operationId: 'createPortalColleague',
        description:
          'With a password, the colleague signs in with it at once (the owner tells it to them). Without one, ' +
          'they are mailed a link to choose their own, valid once for 7 days; until then nothing signs in as ' +
          'them, and when it has expired "Forgot your password?" mails a new one.',
        security: auth.portalChange,
        body: PortalColleagueBodySchema,
        response: {
          201: answer('The new portal user (staff unless a role is given).', PortalColleagueSchema),
          ...portalErrors({
            400: 'Body invalid or password shorter than 10 characters (invalid_request, password_too_short).',
            403: OWNER_ONLY,
            409: 'A portal user with this e-mail exists (portal_user_exists).',
            429:
              'Without a first password: 3 invitations to this address, or 20 of the business, in the last 24 ' +
              'hours; retry after Retry-After seconds (invitations_throttled).',
          }),
        },
      },
    },
    async (request, reply) => {
      const s = requireOwner(request);
      const { user, link } = await inviteColleague(accounts, s, request.body);
      if (link) await mailInvitation(request, s, link);
      return reply.code(201).send({ ...user, invited: link !== null });
    },
  );

  app.patch(
    '/users/:id',
    {
      schema: {
        tags: [TAG],
        summary: "Change a colleague's role (owners only)",
        operationId: 'setPortalColleagueRole',
        description:
          "Takes effect with the colleague's next request. An owner cannot change their own role, so the " +
          'merchant always keeps an owner; two owners changing each other at once are done one after the other.',
        security: auth.portalChange,
        params: IdParams,
        body: Type.Object(
          { role: Type.Union([Type.Literal('owner'), Type.Literal('staff')]) },
          { title: 'PortalColleagueRole', additionalProperties: false },
        ),
        response: {
          204: answer('Changed.', Type.Null()),
          ...portalErrors(COLLEAGUE, { change: true }),
        },
      },
    },
    async (request, reply) => {
      await changeRole(accounts, requireOwner(request), request.params.id, request.body.role);
      return reply.code(204).send(undefined as never);
    },
  );

  app.delete(
    '/users/:id',
    {
      schema: {
        tags: [TAG],
        summary: 'Remove a colleague: their access ends at once (owners only)',
        operationId: 'removePortalColleague',
        description:
          'Every session of the colleague ends and their e-mail and password sign in no more. What they ' +
          'did (balance corrections, card locks) still names them; their e-mail can be invited again.',
        security: auth.portalChange,
        params: IdParams,
        response: {
          204: answer('Removed.', Type.Null()),
          ...portalErrors(COLLEAGUE, { change: true }),
        },
      },
    },
    async (request, reply) => {
      await removeColleague(accounts, requireOwner(request), request.params.id);
      return reply.code(204).send(undefined as never);
    },
  );

  app.post(
    '/users/:id/invitation',
    {
      schema: {
        tags: [TAG],
        summary: 'Send a colleague who never signed in the invitation again (owners only)',
        operationId: 'resendPortalInvitation',
        description:
          'A new link to choose their password, valid once for 7 days, is mailed after the answer; earlier ' +
          "links keep working until one is used. Counts towards the invitations' limits.",
        security: auth.portalChange,
        params: IdParams,
        response: {
          204: answer('Taken: the invitation is on its way.', Type.Null()),
          ...portalErrors(
            {
              ...COLLEAGUE,
              409:
                "The id is the signed-in user's own (portal_user_self), or the colleague has signed in before " +
                '(colleague_signed_in).',
              429:
                '3 invitations to this address, or 20 of the business, in the last 24 hours; retry after ' +
                'Retry-After seconds (invitations_throttled).',
            },
            { change: true },
          ),
        },
      },
    },
    async (request, reply) => {
      const s = requireOwner(request);
      const link = await resendInvitation(accounts, s, request.params.id);
      if (link) await mailInvitation(request, s, link);
      return reply.code(204).send(undefined as never);
    },
  );

  app.put(
    '/users/:id/password',
    {
      schema: {
        tags: [TAG],
        summary: "Set a colleague's new password, when they forgot theirs (owners only)",
        operationId: 'setPortalColleaguePassword',
        description: 'Ends every session of the colleague and lifts a lock-out; tell them the new password.',
        security: auth.portalChange,
        params: IdParams,
        body: Type.Object(
          { password: Password },
          { title: 'PortalColleaguePassword', additionalProperties: false },
        ),
        response: {
          204: answer('Set.', Type.Null()),
          ...portalErrors(COLLEAGUE, { change: true }),
        },
      },
    },
    async (request, reply) => {
      await setColleaguePassword(accounts, requireOwner(request), request.params.id, request.body.password);
      return reply.code(204).send(undefined as never);
    },
  );

  app.put(
    '/me/password',
    {
      schema: {
        tags: [TAG],
        summary: 'Change your own password',
        operationId: 'changePortalPassword',
        description:
          'Needs the current password; a wrong one counts towards the lock-out as a failed sign-in does. ' +
          'Every other session of yours ends (another browser, a lost phone); this one stays.',
        security: auth.portalChange,
        body: Type.Object(
          { currentPassword: Type.String({ maxLength: 200 }), newPassword: Password },
          { title: 'PortalPasswordChange', additionalProperties: false },
        ),
        response: {
          204: answer('Changed.', Type.Null()),
          ...portalErrors(
            {
              400:
                'Body invalid (invalid_request), the current password wrong (current_password_wrong), or the new ' +
                'one shorter than 10 characters (password_too_short).',
              429: 'Locked after five wrong passwords in a row, for 15 minutes (sign_in_locked).',
            },
            { change: true },
          ),
        },
      },
    },
    async (request, reply) => {
      const s = requireSession(request);
      const token = readCookie(request, SESSION_COOKIE);
      if (!token) throw new AppError('portalNotSignedIn');
      await changeOwnPassword(
        accounts,
        s,
        tokenHash(token),
        request.body.currentPassword,
        request.body.newPassword,
      );
      return reply.code(204).send(undefined as never);
    },
  );
};
