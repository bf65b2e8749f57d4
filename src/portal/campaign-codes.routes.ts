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
  type CodeBatchView,
  type CodeView,
  codeBatchPage,
  codePage,
  codesCsvOf,
  createCodeBatch,
  findCode,
  listCodeBatches,
  listCodes,
} from '../campaigns/campaign-codes.service.js';
import type { Session } from '../portal-users/portal-auth.service.js';
import { answer, auth } from '../wire/openapi.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import { OWNER_ONLY, portalErrors } from './schemas.js';
import { requireOwner, requireSession } from './session.js';
import { type ViewDeps, viewDeps } from './views.js';

const TAG = 'Portal: campaigns';
const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
const UNKNOWN = { 404: "Campaign unknown, or another merchant's (not_found)." };

/** What the campaign page shows of its unique codes: the batches, and the codes redeemed. */
export interface CodesPanel {
  readonly batches: CodeBatchView[];
  /** The redeemed codes, in code order, at most `REDEEMED_SHOWN`. */
  readonly redeemed: CodeView[];
}

export const REDEEMED_SHOWN = 200;

/** The campaign's batches and redeemed codes, as the API lists them (docs/decisions.md, "Unique codes"). */
export async function codesPanelView(deps: ViewDeps, s: Session, campaignId: number): Promise<CodesPanel> {
  const [batches, redeemed] = await Promise.all([
    listCodeBatches(deps.services.campaigns, s.merchantId, campaignId, { beforeId: null, limit: 100 }),
    listCodes(deps.services.campaigns, s.merchantId, campaignId, { redeemed: true, limit: REDEEMED_SHOWN }),
  ]);
  return { batches, redeemed };
}

/** A campaign's unique codes on the portal's API: make a batch (owners), list, export as CSV. */
export const portalCampaignCodeRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const deps = viewDeps(app);
  const campaigns = app.services.campaigns;

  app.post(
    '/campaigns/:id/codeBatches',
    {
      schema: {
        tags: [TAG],
        summary: 'Make a batch of unique codes for a campaign (owners only)',
        operationId: 'createPortalCampaignCodeBatch',
        description: "As the operator API's createCampaignCodeBatch.",
        security: auth.portalChange,
        params: IdParams,
        body: CodeBatchBodySchema,
        response: {
          201: answer('The new batch.', CodeBatchSchema),
          ...portalErrors({
            400: 'Body invalid (invalid_request; details.field names the field).',
            403: OWNER_ONLY,
            ...UNKNOWN,
            409:
              'The campaign has ended (rule_ended), takes no unique codes (campaign_without_codes), or no ' +
              'more distinct codes could be made (campaign_codes_exhausted).',
          }),
        },
      },
    },
    async (request, reply) => {
      const s = requireOwner(request);
      return reply
        .code(201)
        .send(await createCodeBatch(campaigns, s.merchantId, request.params.id, request.body));
    },
  );

  app.get(
    '/campaigns/:id/codeBatches',
    {
      schema: {
        tags: [TAG],
        summary: "A campaign's batches of unique codes",
        operationId: 'listPortalCampaignCodeBatches',
        security: auth.portal,
        params: IdParams,
        querystring: Type.Object(pageQueryFields),
        response: {
          200: answer('The batches, newest first.', PageOf(CodeBatchSchema, 'PortalCodeBatchPage')),
          ...portalErrors({ ...pageErrors, ...UNKNOWN }),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      return codeBatchPage(campaigns, s.merchantId, request.params.id, request.query);
    },
  );

  app.get(
    '/campaigns/:id/codes',
    {
      schema: {
        tags: [TAG],
        summary: "A campaign's unique codes, with where and when each was redeemed",
        operationId: 'listPortalCampaignCodes',
        security: auth.portal,
        params: IdParams,
        querystring: Type.Object({ ...CodesFilterFields, ...pageQueryFields }),
        response: {
          200: answer('The codes in code order.', PageOf(CodeSchema, 'PortalCampaignCodePage')),
          ...portalErrors({ ...pageErrors, ...UNKNOWN }),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      return codePage(campaigns, s.merchantId, request.params.id, request.query);
    },
  );

  app.get(
    '/campaigns/:id/codes.csv',
    {
      schema: {
        tags: [TAG],
        summary: "A campaign's unique codes as CSV",
        operationId: 'downloadPortalCampaignCodes',
        description: "As the operator API's downloadCampaignCodes.",
        security: auth.portal,
        params: IdParams,
        querystring: Type.Object({ batchId: CodesFilterFields.batchId }),
        response: {
          200: {
            description: 'CSV, a header line first.',
            content: { 'text/csv': { schema: Type.String() } },
          },
          ...portalErrors({ 400: 'Query invalid (invalid_request).', ...UNKNOWN }),
        },
      },
    },
    async (request, reply) => {
      const s = requireSession(request);
      const { id } = request.params;
      const csv = await codesCsvOf(deps.services.campaigns, s.merchantId, id, request.query.batchId);
      reply.header('content-disposition', `attachment; filename="campaign-${id}-codes.csv"`);
      return reply.type('text/csv; charset=utf-8').send(csv);
    },
  );

  app.get(
    '/codes/:code',
    {
      schema: {
        tags: [TAG],
        summary: "One of the merchant's unique codes, whichever campaign it belongs to",
        operationId: 'findPortalCampaignCode',
        description: "As the operator API's findCampaignCode.",
        security: auth.portal,
        params: Type.Object({ code: CodeTextParam }),
        response: {
          200: answer('The code.', FoundCodeSchema),
          ...portalErrors({
            400: 'Path invalid (invalid_request).',
            404: 'No code of the merchant reads so (not_found).',
          }),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      return findCode(campaigns, s.merchantId, request.params.code);
    },
  );
};
