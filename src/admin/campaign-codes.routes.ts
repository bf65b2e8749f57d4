import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import {
  CodeBatchBodySchema,
  CodeBatchSchema,
  CodeSchema,
  CodeTextParam,
  CodesFilterFields,
  FoundCodeSchema,
} from '../campaigns/campaign-codes.schemas.js';
import {
  codesCsvOf,
  createCodeBatch,
  codeBatchPage,
  codePage,
  findCode,
} from '../campaigns/campaign-codes.service.js';
import { merchantByName } from '../campaigns/rule.service.js';
import { answer } from '../wire/openapi.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import { apiErrors } from '../wire/schemas.js';

const TAG = 'Operator: campaigns';
const auth = { 401: 'Authorization missing or wrong (unauthorized).' };
const Params = Type.Object({ serviceUserName: Type.String(), id: Type.Integer() });
const unknown = {
  404: 'Merchant or campaign unknown, or the campaign belongs to another merchant (not_found).',
};

/**
 * Unique codes of a campaign on the operator API (docs/decisions.md, "Unique codes"): make a batch,
 * list the batches and the codes with where and when each was redeemed, export them as CSV, and
 * look one code up among all of a merchant's.
 */
export const adminCampaignCodeRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = app.services.campaigns;
  const base = '/merchants/:serviceUserName/campaigns/:id';

  app.post(
    `${base}/codeBatches`,
    {
      schema: {
        tags: [TAG],
        summary: 'Make a batch of unique codes for a campaign',
        operationId: 'createCampaignCodeBatch',
        description:
          'The campaign must take unique codes (`uniqueCodes: true`). Each code is new among the ' +
          "merchant's codes and is redeemed once across every till: a till sends it as a " +
          'ContextIdentifiers entry, the upload shows the campaign applying while the code is unused, ' +
          'and the grant redeems it (a concurrent grant with the same code is booked without the ' +
          "campaign's reward). A return that gives the campaign's reward back gives the code back.",
        params: Params,
        body: CodeBatchBodySchema,
        response: {
          201: answer('The new batch; its codes are listed by listCampaignCodes.', CodeBatchSchema),
          ...apiErrors({
            400: 'Body invalid (invalid_request; details.field names the field).',
            ...unknown,
            409:
              'The campaign has ended (rule_ended), takes no unique codes (campaign_without_codes), or no ' +
              'more distinct codes of this prefix and length could be made (campaign_codes_exhausted).',
            ...auth,
          }),
        },
      },
    },
    async (request, reply) => {
      const merchant = await merchantByName(app.ctx.database.db, request.params.serviceUserName);
      const batch = await createCodeBatch(deps, merchant.id, request.params.id, request.body);
      return reply.code(201).send(batch);
    },
  );

  app.get(
    `${base}/codeBatches`,
    {
      schema: {
        tags: [TAG],
        summary: "A campaign's batches of unique codes",
        operationId: 'listCampaignCodeBatches',
        params: Params,
        querystring: Type.Object(pageQueryFields),
        response: {
          200: answer(
            'The batches, newest first, with how many codes of each are redeemed now.',
            PageOf(CodeBatchSchema, 'CodeBatchPage'),
          ),
          ...apiErrors({ ...pageErrors, ...unknown, ...auth }),
        },
      },
    },
    async (request) => {
      const merchant = await merchantByName(app.ctx.database.db, request.params.serviceUserName);
      return codeBatchPage(deps, merchant.id, request.params.id, request.query);
    },
  );

  app.get(
    `${base}/codes`,
    {
      schema: {
        tags: [TAG],
        summary: "A campaign's unique codes, with where and when each was redeemed",
        operationId: 'listCampaignCodes',
        params: Params,
        querystring: Type.Object({ ...CodesFilterFields, ...pageQueryFields }),
        response: {
          200: answer('The codes in code order, a page at a time.', PageOf(CodeSchema, 'CampaignCodePage')),
          ...apiErrors({ ...pageErrors, ...unknown, ...auth }),
        },
      },
    },
    async (request) => {
      const merchant = await merchantByName(app.ctx.database.db, request.params.serviceUserName);
      return codePage(deps, merchant.id, request.params.id, request.query);
    },
  );

  app.get(
    `${base}/codes.csv`,
    {
      schema: {
        tags: [TAG],
        summary: "A campaign's unique codes as CSV",
        operationId: 'downloadCampaignCodes',
        description:
          'Every code of the campaign (or of one batch), in code order: code, batch, redeemed_at, ' +
          'terminal, outlet, basket; the last four empty for an unused code.',
        params: Params,
        querystring: Type.Object({ batchId: CodesFilterFields.batchId }),
        response: {
          200: {
            description: 'CSV, a header line first.',
            content: { 'text/csv': { schema: Type.String() } },
          },
          ...apiErrors({ 400: 'Query invalid (invalid_request).', ...unknown, ...auth }),
        },
      },
    },
    async (request, reply) => {
      const merchant = await merchantByName(app.ctx.database.db, request.params.serviceUserName);
      const { id } = request.params;
      const csv = await codesCsvOf(deps, merchant.id, id, request.query.batchId);
      reply.header('content-disposition', `attachment; filename="campaign-${id}-codes.csv"`);
      return reply.type('text/csv; charset=utf-8').send(csv);
    },
  );

  app.get(
    '/merchants/:serviceUserName/codes/:code',
    {
      schema: {
        tags: [TAG],
        summary: "One of a merchant's unique codes, whichever campaign it belongs to",
        operationId: 'findCampaignCode',
        description:
          'The code a customer shows or a till sent, looked up as a till compares it (blanks around ' +
          'it and the case do not matter): its campaign, and whether it is unused or where and when ' +
          'it was redeemed.',
        params: Type.Object({ serviceUserName: Type.String(), code: CodeTextParam }),
        response: {
          200: answer('The code.', FoundCodeSchema),
          ...apiErrors({
            400: 'Path invalid (invalid_request).',
            404: 'Merchant unknown, or no code of the merchant reads so (not_found).',
            ...auth,
          }),
        },
      },
    },
    async (request) => {
      const merchant = await merchantByName(app.ctx.database.db, request.params.serviceUserName);
      return findCode(deps, merchant.id, request.params.code);
    },
  );
};
