import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { type TSchema, Type } from 'typebox';
import { dryRun } from '../baskets/basket-dry-run.js';
import {
  type CampaignBody,
  CampaignBodySchema,
  CampaignRecordSchema,
  CreatedSchema,
  type SchemeBody,
  SchemeBodySchema,
  SchemeRecordSchema,
} from '../campaigns/rule.schemas.js';
import {
  type MerchantRef,
  campaignWrite,
  createRule,
  endRule,
  merchantById,
  recordView,
  schemeWrite,
  setRulePaused,
  updateRule,
  withBudgetsRemaining,
} from '../campaigns/rule.service.js';
import { type RuleKind, type RuleRecord, listRules, readRule } from '../campaigns/rule-versions.store.js';
import { AppError } from '../shared/errors.js';
import type { Database } from '../store/db.js';
import { answer, auth } from '../wire/openapi.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import { type PageRequest, pageOf, pageRequest } from '../shared/paging.js';
import type { Session } from '../portal-users/portal-auth.service.js';
import { type ViewDeps, viewDeps } from './views.js';
import type { RuleListing } from './page-campaigns.js';
import { DryRunBodySchema, DryRunResponseSchema } from '../wire/documents/dry-run.schemas.js';
import { OWNER_ONLY, portalErrors } from './schemas.js';
import { requireOwner, requireSession } from './session.js';

const TAG = 'Portal: campaigns';

export type RuleState = 'scheduled' | 'live' | 'paused' | 'ended';

/**
 * ended: ended by the merchant or past validTo; paused: paused by the merchant; scheduled: before
 * validFrom; live otherwise.
 */
export function ruleState(r: RuleRecord, nowMs: number): RuleState {
  if (r.endedAt !== null) return 'ended';
  if (r.pausedAt !== null) return 'paused';
  const from = r.engine.validFromMs;
  const to = r.engine.validToMs;
  if (typeof to === 'number' && to <= nowMs) return 'ended';
  if (typeof from === 'number' && from > nowMs) return 'scheduled';
  return 'live';
}

const StateField = {
  state: Type.Union(
    [Type.Literal('scheduled'), Type.Literal('live'), Type.Literal('paused'), Type.Literal('ended')],
    {
      description:
        'scheduled (before validFrom), live, paused (by the merchant: gives nothing until resumed), or ended (ended, or past validTo).',
    },
  ),
};

interface Spec {
  kind: RuleKind;
  segment: string;
  noun: string;
  body: TSchema;
  record: TSchema;
  write(db: Database['db'], merchant: MerchantRef, body: unknown): ReturnType<typeof campaignWrite>;
}

const SPECS: Spec[] = [
  {
    kind: 'campaign',
    segment: 'campaigns',
    noun: 'Campaign',
    body: CampaignBodySchema,
    record: CampaignRecordSchema,
    write: (db, m, body) => campaignWrite(db, m, body as CampaignBody),
  },
  {
    kind: 'scheme',
    segment: 'loyaltySchemes',
    noun: 'LoyaltyScheme',
    body: SchemeBodySchema,
    record: SchemeRecordSchema,
    write: (db, m, body) => schemeWrite(db, m, body as SchemeBody),
  },
];

/** A campaign or loyalty scheme as the portal shows it: its current version and its state now. */
function ruleView(r: RuleRecord, nowMs: number): Record<string, unknown> & RuleListing {
  // The stored definition carries the listed fields (name, type, validity); the answer's schema
  // (`Portal<Noun>`) holds the JSON API to them.
  return { ...recordView(r), state: ruleState(r, nowMs) } as Record<string, unknown> & RuleListing;
}

/** Views of campaigns with what is left of their budgets now (rule.service.ts). */
async function withRemaining(
  deps: ViewDeps,
  s: Session,
  kind: RuleKind,
  views: ReturnType<typeof ruleView>[],
) {
  const merchant = await merchantById(deps.db, s.merchantId);
  return withBudgetsRemaining(deps.db, kind, merchant, views, deps.clock.nowMs());
}

/** The merchant's campaigns or loyalty schemes, oldest first (all of them without `page`). */
export async function rulesView(deps: ViewDeps, s: Session, kind: RuleKind, page?: PageRequest) {
  const rows = await listRules(deps.db, kind, s.merchantId, 'all', page);
  const nowMs = deps.clock.nowMs();
  return withRemaining(
    deps,
    s,
    kind,
    rows.map((r) => ruleView(r, nowMs)),
  );
}

/** One campaign or loyalty scheme; 404 when the merchant has none under this id. */
export async function oneRuleView(deps: ViewDeps, s: Session, kind: RuleKind, id: number) {
  const r = await readRule(deps.db, kind, s.merchantId, id);
  if (!r) {
    throw new AppError(
      'notFound',
      `No ${kind === 'campaign' ? 'campaign' : 'loyalty scheme'} under this id.`,
    );
  }
  const [view] = await withRemaining(deps, s, kind, [ruleView(r, deps.clock.nowMs())]);
  return view ?? ruleView(r, deps.clock.nowMs());
}

function registerRules(fastify: FastifyInstance, spec: Spec): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;
  const what = spec.kind === 'campaign' ? 'campaign' : 'loyalty scheme';
  const Listed = Type.Object(
    { ...(spec.record as unknown as { properties: Record<string, TSchema> }).properties, ...StateField },
    { title: `Portal${spec.noun}` },
  );
  const unknown = () => new AppError('notFound', `No ${what} under this id.`);
  const view = (r: RuleRecord) => ruleView(r, app.ctx.clock.nowMs());
  const deps = viewDeps(app);

  app.get(
    `/${spec.segment}`,
    {
      schema: {
        tags: [TAG],
        summary: `The merchant's ${what}s with their state`,
        operationId: `listPortal${spec.noun}s`,
        security: auth.portal,
        querystring: Type.Object(pageQueryFields),
        response: {
          200: answer(
            `The ${what}s, current versions, oldest first, a page at a time.`,
            PageOf(Listed, `Portal${spec.noun}Page`),
          ),
          ...portalErrors(pageErrors),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const list = `${spec.kind}s`;
      const page = pageRequest(list, request.query, ['number']);
      const rows = await listRules(db, spec.kind, s.merchantId, 'all', page);
      const answer = pageOf(list, rows, page.limit, (r) => [r.id], view);
      return { ...answer, data: await withRemaining(deps, s, spec.kind, answer.data) };
    },
  );

  const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
  app.get(
    `/${spec.segment}/:id`,
    {
      schema: {
        tags: [TAG],
        summary: `One ${what}`,
        operationId: `getPortal${spec.noun}`,
        security: auth.portal,
        params: IdParams,
        response: {
          200: answer(`The ${what}, current version.`, Listed),
          ...portalErrors({
            400: 'id invalid (invalid_request).',
            404: `${what} unknown, or another merchant's (not_found).`,
          }),
        },
      },
    },
    async (request) => oneRuleView(deps, requireSession(request), spec.kind, request.params.id),
  );

  app.post(
    `/${spec.segment}`,
    {
      schema: {
        tags: [TAG],
        summary: `Create a ${what} (owners only)`,
        operationId: `createPortal${spec.noun}`,
        description: `The body is that of the operator API's create${spec.noun}.`,
        security: auth.portalChange,
        body: spec.body,
        response: {
          201: answer(`The new ${what}: its id and version 1.`, CreatedSchema),
          ...portalErrors({
            400: 'Body invalid (invalid_request; details.field names the field).',
            403: OWNER_ONLY,
          }),
        },
      },
    },
    async (request, reply) => {
      const s = requireOwner(request);
      const merchant = await merchantById(db, s.merchantId);
      const write = await spec.write(db, merchant, request.body);
      return reply.code(201).send(await createRule(app.services.campaigns, spec.kind, s.merchantId, write));
    },
  );

  app.put(
    `/${spec.segment}/:id`,
    {
      schema: {
        tags: [TAG],
        summary: `Change a ${what}: a new version (owners only)`,
        operationId: `updatePortal${spec.noun}`,
        security: auth.portalChange,
        params: IdParams,
        body: spec.body,
        response: {
          200: answer(`The ${what}'s id and new version.`, CreatedSchema),
          ...portalErrors({
            400: 'Body invalid, or the rule has ended (invalid_request, rule_ended).',
            403: OWNER_ONLY,
            404: `${what} unknown, or another merchant's (not_found).`,
          }),
        },
      },
    },
    async (request) => {
      const s = requireOwner(request);
      const id = request.params.id;
      if (!(await readRule(db, spec.kind, s.merchantId, id))) throw unknown();
      const merchant = await merchantById(db, s.merchantId);
      const write = await spec.write(db, merchant, request.body);
      const outcome = await updateRule(app.services.campaigns, spec.kind, s.merchantId, id, write);
      if (outcome === 'unknown') throw unknown();
      if (outcome === 'ended') throw new AppError('ruleEnded', `The ${what} ${id} has ended.`);
      return { id, version: outcome.version };
    },
  );
}

/** Pause, resume and end on the campaign's page (owners only): what each does is in its summary. */
function registerStateChanges(fastify: FastifyInstance, spec: Spec): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const what = spec.kind === 'campaign' ? 'campaign' : 'loyalty scheme';
  const Listed = Type.Object(
    { ...(spec.record as unknown as { properties: Record<string, TSchema> }).properties, ...StateField },
    { title: `Portal${spec.noun}State` },
  );
  const IdParams = Type.Object({ id: Type.Integer({ minimum: 1 }) });
  const changes = [
    {
      action: 'pause',
      summary: `Pause a ${what}: it gives nothing, at the tills or to online orders, until resumed (owners only)`,
      ended: true,
    },
    {
      action: 'resume',
      summary: `Resume a paused ${what}: it applies again (owners only)`,
      ended: true,
    },
    {
      action: 'end',
      summary: `End a ${what} for good: it stops applying at once, its history stays (owners only)`,
      ended: false,
    },
  ] as const;
  const ended: Record<number, string> = { 409: `The ${what} has ended (rule_ended).` };
  for (const change of changes) {
    app.post(
      `/${spec.segment}/:id/${change.action}`,
      {
        schema: {
          tags: [TAG],
          summary: change.summary,
          operationId: `${change.action}Portal${spec.noun}`,
          description: `Doing it twice changes nothing. Answers the ${what} with its state.`,
          security: auth.portalChange,
          params: IdParams,
          response: {
            200: answer(`The ${what} with its new state.`, Listed),
            ...portalErrors(
              {
                400: 'id invalid (invalid_request).',
                403: OWNER_ONLY,
                404: `${what} unknown, or another merchant's (not_found).`,
                ...(change.ended ? ended : {}),
              },
              { change: true },
            ),
          },
        },
      },
      async (request) => {
        const s = requireOwner(request);
        const id = request.params.id;
        const deps = app.services.campaigns;
        const outcome =
          change.action === 'end'
            ? ((await endRule(deps, spec.kind, s.merchantId, id)) ?? 'unknown')
            : await setRulePaused(deps, spec.kind, s.merchantId, id, change.action === 'pause');
        if (outcome === 'unknown') throw new AppError('notFound', `No ${what} under this id.`);
        if (outcome === 'ended') throw new AppError('ruleEnded', `The ${what} ${id} has ended.`);
        return { ...recordView(outcome), state: ruleState(outcome, app.ctx.clock.nowMs()) };
      },
    );
  }
}

export const portalCampaignRoutes: FastifyPluginAsync = async (fastify) => {
  for (const spec of SPECS) {
    registerRules(fastify, spec);
    registerStateChanges(fastify, spec);
  }
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;

  // A dry run changes nothing: staff may use it too, but it is a POST and carries the CSRF token.
  app.post(
    '/dryRun',
    {
      schema: {
        tags: [TAG],
        summary: 'Dry run: the rewards a basket would get under draft and live campaigns',
        operationId: 'dryRunPortalCampaigns',
        description: "The operator API's dry run for the signed-in merchant. Nothing is stored.",
        security: auth.portalChange,
        body: DryRunBodySchema,
        response: {
          200: answer(
            'The rewards the basket would get, and why each campaign applied or not.',
            DryRunResponseSchema,
          ),
          ...portalErrors(
            {
              400: 'Body invalid: basket, draft definition or outlet (invalid_request; details.field names the field).',
            },
            { change: true },
          ),
        },
      },
    },
    async (request) => {
      const s = requireSession(request);
      return dryRun(app.services.campaigns, await merchantById(db, s.merchantId), request.body, {
        subject: `portal-user:${s.userId}`,
      });
    },
  );
};
