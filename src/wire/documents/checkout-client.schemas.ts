import { Type } from 'typebox';
import { Nullable } from '../schemas.js';

/** A checkout client as listed: never its credentials (the operator API and the merchant portal). */
export const CheckoutClientSchema = Type.Object(
  {
    id: Type.Integer(),
    name: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
    revokedAt: Nullable(Type.String({ format: 'date-time' })),
  },
  { title: 'CheckoutClient' },
);

/** The answer of creating a client: its credentials, this once. */
export const CheckoutClientCredentialsSchema = Type.Object(
  { id: Type.Integer(), accessToken: Type.String(), securitySecret: Type.String() },
  { title: 'CheckoutClientCredentials' },
);

export const CheckoutClientRequestSchema = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
});
