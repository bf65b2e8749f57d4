import { Type } from 'typebox';
import { MailAddress } from './mail-address.schemas.js';

/** A user of the merchant portal, as the operator API and the portal's own API create and answer it. */

export const PortalUserBodySchema = Type.Object(
  {
    email: MailAddress({ maxLength: 254 }),
    password: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'At least 10 characters. Without it the user is mailed a link to choose their own password, valid ' +
          'once for 7 days.',
      }),
    ),
    role: Type.Optional(
      Type.Union([Type.Literal('owner'), Type.Literal('staff')], {
        description: "owner (the merchant's first user by default) or staff (later users by default).",
      }),
    ),
    lang: Type.Optional(Type.Union([Type.Literal('de'), Type.Literal('en')])),
  },
  { title: 'PortalUserCreate' },
);

/** An owner's new colleague in the portal's own API: the first password optional (without it, an invitation by e-mail). */
export const PortalColleagueBodySchema = Type.Object(
  {
    email: PortalUserBodySchema.properties.email,
    password: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 200,
        description:
          'At least 10 characters, told to the colleague by the owner. Without it the colleague is mailed a link ' +
          'to choose their own password, valid once for 7 days.',
      }),
    ),
    role: Type.Optional(
      Type.Union([Type.Literal('owner'), Type.Literal('staff')], { description: 'staff unless given.' }),
    ),
    lang: Type.Optional(
      Type.Union([Type.Literal('de'), Type.Literal('en')], {
        description: "The colleague's portal language, and the invitation's (else the owner's).",
      }),
    ),
  },
  { title: 'PortalColleagueCreate', additionalProperties: false },
);

export const PortalColleagueSchema = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    role: Type.Union([Type.Literal('owner'), Type.Literal('staff')]),
    invited: Type.Boolean({
      description: 'A link to choose their password is on its way to the e-mail (no password was given).',
    }),
  },
  { title: 'PortalColleague' },
);

export const PortalUserSchema = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    role: Type.Union([Type.Literal('owner'), Type.Literal('staff')]),
    invited: PortalColleagueSchema.properties.invited,
  },
  { title: 'PortalUser' },
);

export const PortalTeamMemberSchema = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    role: Type.Union([Type.Literal('owner'), Type.Literal('staff')]),
    createdAt: Type.String({ format: 'date-time' }),
    lastSignedInAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description: 'The latest sign-in; null when the user never signed in.',
    }),
    locked: Type.Boolean({
      description: 'Locked out at the moment by five failed sign-ins in a row (for 15 minutes).',
    }),
    you: Type.Boolean({ description: 'The signed-in user themselves.' }),
    invitedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description:
        'Invited by e-mail and not yet taken up: when the latest invitation was mailed, also when its link ' +
        'has expired (invitationOpenUntil null); null otherwise.',
    }),
    invitationOpenUntil: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
      description:
        'Invited by e-mail and not yet taken up: until when the link works (else "Forgot your password?" ' +
        'mails a new one); null when no invitation is open.',
    }),
  },
  { title: 'PortalTeamMember' },
);
