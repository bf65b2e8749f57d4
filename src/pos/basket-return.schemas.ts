import { Type } from 'typebox';
import { LoyaltyInfoSchema } from '../wire/documents/basket.schemas.js';

/** POS v3 basket return (docs/decisions.md, "Returns"): request and response. */

export const ReturnPositionSchema = Type.Object(
  {
    PositionId: Type.Integer({ minimum: 0, description: 'A position of the granted basket.' }),
    Amount: Type.Number({
      exclusiveMinimum: 0,
      description:
        'Quantity returned, in the unit of the position (decimal). With all earlier returns of the position at most what was sold (else 11012).',
    }),
  },
  { xml: { name: 'Position' }, title: 'ReturnPosition' },
);

export const ReturnBodySchema = Type.Object(
  {
    ReturnId: Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        'Client-generated, unique per basket. The same ReturnId with the same Positions answers the stored response and books nothing; with other Positions it is 400 / 11014.',
    }),
    Positions: Type.Array(ReturnPositionSchema, {
      minItems: 1,
      maxItems: 5000,
      description: 'Each PositionId at most once.',
    }),
  },
  { xml: { name: 'Return' }, title: 'Return' },
);

export const ReturnResponseSchema = Type.Object(
  {
    ReturnId: Type.String(),
    RefundedRewardValue: Type.Number({
      description:
        'The part of the basket rewards that falls on the quantities of this return (major units): what the POS keeps back from the refund. ' +
        'Product rewards follow the returned share of their position, bill rewards are spread over the positions by value; over all returns of a basket the values add up exactly to its rewards.',
    }),
    LoyaltyInfo: Type.Array(LoyaltyInfoSchema, {
      description:
        'One item per scheme the grant booked (empty without a consumer): PreviousPoints before this return, NewPoints after it, ' +
        'GrossRewardValue the scheme reward whose points this return gave back (else 0) with its RewardTriggeringPositionId (else 0).',
    }),
  },
  { xml: { name: 'ReturnResponse' }, title: 'ReturnResponse' },
);

export type { ReturnBody, ReturnResponse } from '../baskets/basket.types.js';
