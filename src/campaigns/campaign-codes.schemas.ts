import { Type } from 'typebox';
import { Nullable } from '../shared/nullable.js';
import { CODE_ALPHABET, CODE_BATCH_MAX, CODE_LENGTH, CODE_PREFIX_MAX } from './campaign-codes.js';

/** Wire schemas of a campaign's unique codes, the operator API's and the portal's (docs/decisions.md, "Unique codes"). */

export const CodeBatchBodySchema = Type.Object(
  {
    count: Type.Integer({ description: `How many codes, 1 to ${CODE_BATCH_MAX}.` }),
    prefix: Type.Optional(
      Type.String({
        maxLength: 40,
        description:
          `Put before every code, at most ${CODE_PREFIX_MAX} letters, digits and dashes, not starting with a dash; ` +
          'kept in upper case. Default none.',
      }),
    ),
    length: Type.Optional(
      Type.Integer({
        description:
          `Random characters after the prefix, ${CODE_LENGTH.min} to ${CODE_LENGTH.max}; default ${CODE_LENGTH.default}. ` +
          `Drawn with a cryptographic random source from ${CODE_ALPHABET} (no 0/O, no 1/I/L).`,
      }),
    ),
  },
  { title: 'CodeBatchRequest' },
);

export const CodeBatchSchema = Type.Object(
  {
    id: Type.Integer(),
    campaignId: Type.Integer(),
    prefix: Type.String(),
    length: Type.Integer({ description: 'Random characters after the prefix.' }),
    count: Type.Integer(),
    redeemed: Type.Integer({ description: 'Codes of the batch redeemed now (a return gives a code back).' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { title: 'CodeBatch' },
);

export const CodeSchema = Type.Object(
  {
    code: Type.String({ description: 'As printed; tills may send it in any case.' }),
    batchId: Type.Integer(),
    redeemedAt: Nullable(
      Type.String({ format: 'date-time', description: 'When a grant redeemed it; null: unused.' }),
    ),
    trackingUnitId: Nullable(Type.String({ description: 'The terminal whose grant redeemed it.' })),
    terminalName: Nullable(Type.String({ description: "That terminal's instance name." })),
    outletId: Nullable(Type.Integer({ description: 'The outlet of the basket that redeemed it.' })),
    outletName: Nullable(Type.String()),
    basketId: Nullable(Type.String({ description: 'The basket that redeemed it.' })),
  },
  { title: 'CampaignCode' },
);

export const CodesFilterFields = {
  batchId: Type.Optional(Type.Integer({ minimum: 1, description: 'Only the codes of this batch.' })),
  redeemed: Type.Optional(
    Type.Boolean({ description: 'true: only redeemed codes; false: only unused ones; absent: all.' }),
  ),
};

export const FoundCodeSchema = Type.Object(
  {
    ...CodeSchema.properties,
    campaignId: Type.Integer({ description: 'The campaign whose reward the code gives.' }),
    campaignName: Type.String({ description: "That campaign's name now." }),
    givenBackAt: Nullable(
      Type.String({
        format: 'date-time',
        description:
          'When a return last gave the code back; null: never. A code given back may since have been redeemed again (redeemedAt after it).',
      }),
    ),
  },
  { title: 'FoundCampaignCode' },
);

export const CodeTextParam = Type.String({
  minLength: 1,
  maxLength: 80,
  description: 'The code as printed or typed; blanks around it and the case do not matter.',
});
