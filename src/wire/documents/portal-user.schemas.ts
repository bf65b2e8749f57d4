import { Type } from 'typebox';

/** A user of the merchant portal, as the operator API and the portal's own API create and answer it. */

export const PortalUserBodySchema = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254, pattern: '^[^@\\s]+@[^@\\s]+$' }),
    password: Type.String({ minLength: 1, maxLength: 200, description: 'At least 10 characters.' }),
    role: Type.Optional(
      Type.Union([Type.Literal('owner'), Type.Literal('staff')], {
        description: "owner (the merchant's first user by default) or staff (later users by default).",
      }),
    ),
    lang: Type.Optional(Type.Union([Type.Literal('de'), Type.Literal('en')])),
  },
  { title: 'PortalUserCreate' },
);

export const PortalUserSchema = Type.Object(
  {
    id: Type.Integer(),
    email: Type.String(),
    role: Type.Union([Type.Literal('owner'), Type.Literal('staff')]),
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
  },
  { title: 'PortalTeamMember' },
);
