import type { FastifyReply } from 'fastify';
import { type TSchema, Type } from 'typebox';

/** Schemas shared by the routes of every API: error bodies and common fields. */

export const PosErrorBody = Type.Object(
  {
    ErrorId: Type.Integer({ description: 'Error id from the catalog (docs/errors.md).' }),
    ErrorText: Type.String(),
    ErrorMessage: Type.Optional(
      Type.String({ description: 'Developer detail of a 500, only with EXPOSE_ERROR_DETAILS=true.' }),
    ),
    StackTrace: Type.Optional(
      Type.String({ description: 'Developer detail of a 500, only with EXPOSE_ERROR_DETAILS=true.' }),
    ),
    Errors: Type.Optional(
      Type.Array(
        Type.Object(
          { PLU: Type.String(), ErrorId: Type.Integer(), ErrorText: Type.String() },
          { xml: { name: 'Error' } },
        ),
        { description: 'Bulk upload: the first 100 invalid items.' },
      ),
    ),
    ErrorsNotListed: Type.Optional(
      Type.Integer({ description: 'Bulk upload: invalid items beyond the first 100, not listed.' }),
    ),
  },
  { xml: { name: 'Error' }, $id: 'PosError', title: 'PosError' },
);

export const errorXmlSchema = PosErrorBody;

export const ApiErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'snake_case code from the catalog (docs/errors.md).' }),
      message: Type.String(),
      details: Type.Optional(
        Type.Object(
          {
            problems: Type.Optional(
              Type.Array(
                Type.Object({
                  in: Type.String({ description: 'body, querystring, params or headers.' }),
                  pointer: Type.String({
                    description: 'JSON pointer to the field within it, e.g. `/positions/2/quantity`.',
                  }),
                  message: Type.String({ description: 'What is wrong with it, e.g. `must be number`.' }),
                }),
                {
                  description:
                    'Every problem of an invalid request (400 invalid_request), one per field and check.',
                },
              ),
            ),
          },
          { additionalProperties: true, description: 'What the error concerns (fields named per code).' },
        ),
      ),
      requestId: Type.Optional(
        Type.String({
          description:
            'The request’s id, as in the Request-Id header. A replayed answer is the first request’s, ' +
            'so it names the first request; refusals of an order written by its single statement name none.',
        }),
      ),
    }),
  },
  { $id: 'ApiError', title: 'ApiError' },
);

/** Error responses of a POS route, by status; the ErrorIds each can carry are in the description. */
export function posErrors(statuses: Record<number, string>): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const [status, description] of Object.entries(statuses)) {
    out[Number(status)] = Type.Ref('PosError', { description });
  }
  return out;
}

export function apiErrors(statuses: Record<number, string>): Record<number, TSchema> {
  const out: Record<number, TSchema> = {};
  for (const [status, description] of Object.entries(statuses)) {
    out[Number(status)] = Type.Ref('ApiError', { description });
  }
  return out;
}

/** The empty body of a 200 that carries nothing. */
export const Empty = Type.Null({ description: 'Empty body.' });

/** Answers with no body at all (the documents' "200 with empty body", a 304). */
export function sendEmpty(reply: { code(status: number): unknown }, status = 200): FastifyReply {
  const r = reply as unknown as FastifyReply;
  return r.code(status).send();
}

// Kept here for the wires; the schema helper itself is not transport (src/shared/nullable.ts).
export { Nullable } from '../shared/nullable.js';

/** The positions a refund takes back: the checkout interface's refund and the portal's. */
export const RefundPositions = Type.Array(
  Type.Object({
    positionId: Type.Integer({ minimum: 0, description: 'A position of the order.' }),
    quantity: Type.Number({
      exclusiveMinimum: 0,
      maximum: 1_000_000,
      description: 'How much of it to take back; up to three decimals.',
    }),
  }),
  { minItems: 1, maxItems: 500, description: 'Take these positions back, in part or whole.' },
);
