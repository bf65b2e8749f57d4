import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import { type TSchema, Type } from 'typebox';
import {
  KIND_NAMES,
  type MerchantRef,
  campaignWrite,
  createRule,
  endRule,
  merchantById,
  merchantByName,
  recordView,
  schemeWrite,
  updateRule,
  withBudgetsRemaining,
} from '../campaigns/rule.service.js';
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
  type RuleKind,
  type RuleStatus,
  type RuleWrite,
  listRules,
  readRule,
  readRuleVersion,
  ruleOwner,
} from '../campaigns/rule-versions.store.js';
import { AppError } from '../shared/errors.js';
import type { Database } from '../store/db.js';
import { pageOf, pageRequest } from '../shared/paging.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import { answer } from '../wire/openapi.js';
import { apiErrors } from '../wire/schemas.js';
import { adminDryRunRoutes } from './dry-run.routes.js';

const auth = { 401: 'Authorization missing or wrong (unauthorized).' };

interface RuleSpec {
  kind: RuleKind;
  /** Path segment: campaigns, loyaltySchemes. */
  segment: string;
  /** Names the operations: createCampaign, listLoyaltySchemes. */
  noun: string;
  tag: string;
  body: TSchema;
  record: TSchema;
  write(db: Database['db'], merchant: MerchantRef, body: unknown): Promise<RuleWrite>;
  /** Extra description of the create and update operations. */
  rules: string;
}

const CAMPAIGNS: RuleSpec = {
  kind: 'campaign',
  segment: 'campaigns',
  noun: 'Campaign',
  tag: 'Operator: campaigns',
  body: CampaignBodySchema,
  record: CampaignRecordSchema,
  write: (db, merchant, body) => campaignWrite(db, merchant, body as CampaignBody),
  rules:
    'Amounts in major units (2.5), percent in percent (12.5, at most two decimals, ' +
    'greater than 0 and at most 100). Refused with 400 invalid_request naming the field: a discount other than ' +
    'exactly one of percent/amount/price, `price` on a bill campaign, a combination without parts, buy or get ' +
    'below 1, a product selector without plu or group, a schedule window whose `from` is not before its `to` ' +
    '("24:00" ends a day; a window past midnight is written as two windows), validFrom not before validTo, ' +
    'outlet ids that are not outlets of the merchant, fields of another campaign type, `stacking` on a campaign ' +
    'other than a product campaign, `stacking.group` missing with mode group or given with another mode, a ' +
    'budget amount not above 0 or with more decimals than the currency, `budget.redemptions` below 1, ' +
    '`budget.period` without `budget.periodAmount` or the other way round. Budgets apply to the next grant; ' +
    'a PUT without `budget` removes them.',
};

const SCHEMES: RuleSpec = {
  kind: 'scheme',
  segment: 'loyaltySchemes',
  noun: 'LoyaltyScheme',
  tag: 'Operator: loyalty schemes',
  body: SchemeBodySchema,
  record: SchemeRecordSchema,
  write: (db, merchant, body) => schemeWrite(db, merchant, body as SchemeBody),
  rules:
    'Refused with 400 invalid_request naming the field: no earn rule, earn points ' +
    'or a reward threshold below 1, `per: amount` without an amount above 0, `per: unit` without products, a ' +
    'product reward without products, `price` on a bill reward, validFrom not before validTo, unknown outlets.',
};

const MerchantParams = Type.Object({ serviceUserName: Type.String() });
const MerchantRuleParams = Type.Object({ serviceUserName: Type.String(), id: Type.Integer() });
const RuleParams = Type.Object({ id: Type.Integer() });
const RuleVersionParams = Type.Object({
  serviceUserName: Type.String(),
  id: Type.Integer(),
  version: Type.Integer(),
});

function registerRuleRoutes(fastify: FastifyInstance, spec: RuleSpec): void {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;
  const what = KIND_NAMES[spec.kind];
  const unknown = () => new AppError('notFound', `No ${what} under this id.`);

  /** The merchant of a rule addressed by id alone; unknown ids answer 404. */
  async function ownerOf(id: number): Promise<MerchantRef> {
    const merchantId = await ruleOwner(db, spec.kind, id);
    if (merchantId === null) throw unknown();
    return merchantById(db, merchantId);
  }

  async function read(merchant: MerchantRef, id: number) {
    const r = await readRule(db, spec.kind, merchant.id, id);
    if (!r) throw unknown();
    const [view] = await withRemaining(merchant, [recordView(r)]);
    return view;
  }

  const withRemaining = (merchant: MerchantRef, views: Record<string, unknown>[]) =>
    withBudgetsRemaining(db, spec.kind, merchant, views, app.ctx.clock.nowMs());

  async function update(merchant: MerchantRef, id: number, body: unknown) {
    const write = await spec.write(db, merchant, body);
    const outcome = await updateRule(app.services.campaigns, spec.kind, merchant.id, id, write);
    if (outcome === 'unknown') throw unknown();
    if (outcome === 'ended') throw new AppError('ruleEnded', `The ${what} ${id} has ended.`);
    return { id, version: outcome.version };
  }

  async function end(merchant: MerchantRef, id: number) {
    const r = await endRule(app.services.campaigns, spec.kind, merchant.id, id);
    if (!r) throw unknown();
    return recordView(r);
  }

  const base = `/merchants/:serviceUserName/${spec.segment}`;
  const merchant404 = { 404: `Merchant unknown (not_found).` };
  const rule404 = {
    404: `Merchant or ${what} unknown, or the ${what} belongs to another merchant (not_found).`,
  };

  app.post(
    base,
    {
      schema: {
        tags: [spec.tag],
        summary: `Create a ${what}`,
        operationId: `create${spec.noun}`,
        description: `${spec.rules} Answers its id and version 1.`,
        params: MerchantParams,
        body: spec.body,
        response: {
          201: answer(`The new ${what}: its id and version 1.`, CreatedSchema),
          ...apiErrors({
            400: 'Body invalid (invalid_request; details.field names the field).',
            ...merchant404,
            ...auth,
          }),
        },
      },
    },
    async (request, reply) => {
      const merchant = await merchantByName(db, request.params.serviceUserName);
      const write = await spec.write(db, merchant, request.body);
      const created = await createRule(app.services.campaigns, spec.kind, merchant.id, write);
      return reply.code(201).send(created);
    },
  );

  app.get(
    base,
    {
      schema: {
        tags: [spec.tag],
        summary: `List a merchant's ${what}s`,
        operationId: `list${spec.noun}s`,
        description:
          '`status=active`: not ended (whatever their validity); `ended`: ended; `all` (default): both.',
        params: MerchantParams,
        querystring: Type.Object({
          status: Type.Optional(
            Type.Union([Type.Literal('active'), Type.Literal('ended'), Type.Literal('all')], {
              default: 'all',
            }),
          ),
          ...pageQueryFields,
        }),
        response: {
          200: answer(
            `The merchant's ${what}s, current versions, oldest first, a page at a time.`,
            PageOf(spec.record, `${spec.noun}Page`),
          ),
          ...apiErrors({ ...pageErrors, ...merchant404, ...auth }),
        },
      },
    },
    async (request) => {
      const merchant = await merchantByName(db, request.params.serviceUserName);
      const status: RuleStatus = request.query.status ?? 'all';
      const list = `${spec.kind}s`;
      const page = pageRequest(list, request.query, ['number']);
      const rows = await listRules(db, spec.kind, merchant.id, status, page);
      const answer = pageOf(list, rows, page.limit, (r) => [r.id], recordView);
      return { ...answer, data: await withRemaining(merchant, answer.data) };
    },
  );

  const readSchema = <P extends TSchema>(operationId: string, summary: string, params: P) => ({
    tags: [spec.tag],
    summary,
    operationId,
    params,
    response: {
      200: answer(`The ${what}.`, spec.record),
      ...apiErrors({ 400: 'Path invalid (invalid_request).', ...rule404, ...auth }),
    },
  });

  app.get(
    `${base}/:id`,
    { schema: readSchema(`read${spec.noun}`, `Read a ${what} (current version)`, MerchantRuleParams) },
    async (request) => read(await merchantByName(db, request.params.serviceUserName), request.params.id),
  );

  app.get(
    `${base}/:id/versions/:version`,
    {
      schema: readSchema(
        `read${spec.noun}Version`,
        `Read one version of a ${what}, as it was`,
        RuleVersionParams,
      ),
    },
    async (request) => {
      const merchant = await merchantByName(db, request.params.serviceUserName);
      const head = await readRule(db, spec.kind, merchant.id, request.params.id);
      const v = await readRuleVersion(db, spec.kind, merchant.id, request.params.id, request.params.version);
      if (!head || !v) throw new AppError('notFound', `No such version of this ${what}.`);
      return recordView({
        ...head,
        version: request.params.version,
        definition: v.definition,
        engine: v.engine,
        updatedAt: v.createdAt,
      });
    },
  );

  const updateSchema = <P extends TSchema>(operationId: string, params: P) => ({
    tags: [spec.tag],
    summary: `Update a ${what}: a new version`,
    operationId,
    description:
      `${spec.rules} The whole definition is replaced and the version raised; earlier versions stay retrievable, ` +
      `and a basket computed with one keeps it.`,
    params,
    body: spec.body,
    response: {
      200: answer(`The ${what}'s id and its new version.`, CreatedSchema),
      ...apiErrors({
        400: 'Body invalid (invalid_request; details.field names the field).',
        ...rule404,
        409: `The ${what} has ended (rule_ended).`,
        ...auth,
      }),
    },
  });

  app.put(
    `${base}/:id`,
    { schema: updateSchema(`update${spec.noun}`, MerchantRuleParams) },
    async (request) =>
      update(await merchantByName(db, request.params.serviceUserName), request.params.id, request.body),
  );

  const endSchema = <P extends TSchema>(operationId: string, params: P) => ({
    tags: [spec.tag],
    summary: `End a ${what}`,
    operationId,
    description:
      `It stops applying to baskets at once; its history stays (read, list with status=ended). ` +
      `Ending an ended ${what} changes nothing. Answers the ${what} with endedAt.`,
    params,
    response: {
      200: answer(`The ended ${what}, with endedAt.`, spec.record),
      ...apiErrors({ 400: 'Path invalid (invalid_request).', ...rule404, ...auth }),
    },
  });

  app.delete(`${base}/:id`, { schema: endSchema(`end${spec.noun}`, MerchantRuleParams) }, async (request) =>
    end(await merchantByName(db, request.params.serviceUserName), request.params.id),
  );

  // The operator is global, so a rule can also be addressed by its id alone (docs/decisions.md, "The operator API").
  const top = `/${spec.segment}/:id`;
  app.get(
    top,
    { schema: readSchema(`read${spec.noun}ById`, `Read a ${what} by id`, RuleParams) },
    async (request) => read(await ownerOf(request.params.id), request.params.id),
  );
  app.put(top, { schema: updateSchema(`update${spec.noun}ById`, RuleParams) }, async (request) =>
    update(await ownerOf(request.params.id), request.params.id, request.body),
  );
  app.delete(top, { schema: endSchema(`end${spec.noun}ById`, RuleParams) }, async (request) =>
    end(await ownerOf(request.params.id), request.params.id),
  );
}

export const adminCampaignRoutes: FastifyPluginAsync = async (fastify) => {
  registerRuleRoutes(fastify, CAMPAIGNS);
  registerRuleRoutes(fastify, SCHEMES);
  await fastify.register(adminDryRunRoutes);
};
