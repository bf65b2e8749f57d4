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
