import compress from '@fastify/compress';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import swagger from '@fastify/swagger';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
  LogController,
  type RouteOptions,
} from 'fastify';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import { operatorGuard } from './admin/auth.js';
import { adminBasketRoutes } from './admin/baskets.routes.js';
import { adminCampaignRoutes } from './admin/campaigns.routes.js';
import { adminBackupRoutes } from './admin/backup.routes.js';
import { adminCampaignCodeRoutes } from './admin/campaign-codes.routes.js';
import { adminCheckoutClientRoutes } from './admin/checkout-clients.routes.js';
import { registerCheckoutAuth } from './checkout/checkout-auth.js';
import { checkoutListRoutes } from './checkout/lists.routes.js';
import { checkoutOrderRoutes } from './checkout/orders.routes.js';
import { checkoutProfileRoutes } from './checkout/profiles.routes.js';
import { webhookRoutes } from './checkout/webhooks.routes.js';
import { adminMerchantRoutes } from './admin/merchants.routes.js';
import { adminTerminalRoutes } from './admin/terminals.routes.js';
import { adminReceiptDetailsRoutes } from './admin/receipt-details.routes.js';
import { adminProfileRoutes } from './admin/profiles.routes.js';
import { adminPortalUserRoutes } from './admin/portal-users.routes.js';
import type { AppContext } from './context.js';
import { createServices } from './services.js';
import { registerMetrics } from './ops/metrics.js';
import { opsRoutes } from './ops/ops.routes.js';
import { basketRoutes } from './pos/baskets.routes.js';
import { merchantRoutes } from './pos/merchants.routes.js';
import { tokenRoutes } from './pos/tokens.routes.js';
import { sortimentRoutes } from './pos/sortiments.routes.js';
import { trackingUnitRoutes } from './pos/tracking-units.routes.js';
import { registerPosAuth } from './pos/route-auth.js';
import { AppError } from './shared/errors.js';
import { registerApiReference } from './wire/api-reference.js';
import { registerPortal } from './portal/portal.js';
import { mePushRoutes } from './consumer-pages/me-push.routes.js';
import { meRoutes } from './consumer-pages/me.routes.js';
import { receiptRoutes } from './consumer-pages/receipts.routes.js';
import { htmlErrorHandler } from './consumer-pages/web-errors.js';
import { stylesheetRoutes } from './consumer-pages/stylesheet.routes.js';
import { CONSUMER_PAGES, securePages } from './wire/page-security.js';
import { openApiOptions } from './wire/openapi.js';
import { webhookComponents, webhookDocuments } from './checkout/webhook-events.schemas.js';
import { REQUEST_ID_HEADER, requestIdOf } from './wire/request-id.js';
import apiExamples from './wire/api-examples.json' with { type: 'json' };
import { registerJsonParser } from './wire/content-parsers.js';
import { registerErrorRendering, sendApiError, sendPosError } from './wire/error-render.js';
import { clientErrorHandler, frameworkErrorHandler } from './wire/framework-errors.js';
import { requestLogSerializers } from './wire/request-log.js';
import { answersFirst } from './wire/answers-first.js';
import { applyServerLimits, registerBodyPace, serverTimeOptions } from './wire/request-limits.js';
import { type Schema, checkNumericTexts, normaliseBody, normaliseQuery } from './wire/normalise.js';
import { registerPosWire } from './wire/pos-wire.js';
import { NUL_REFUSED, boundIntegers, hasNul } from './wire/request-guards.js';
import { loadPrecompiledSchemas } from './wire/precompiled-schemas.js';
import { schemaCompilers } from './wire/schema-compilers.js';
import { ApiErrorBody, PosErrorBody } from './wire/schemas.js';
import { ScheduledBackups } from './store/backups.js';
import { PlannerStatistics } from './store/planner-statistics.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's metrics, for a separate metrics listener (METRICS_PORT). */
    metricsRegistry: Registry;
  }
}

export interface BuildOptions {
  /** pino options, or false for no logs (tests). */
  logger?: boolean | Record<string, unknown>;
  /** Sees every response before it is sent (tests check them against the OpenAPI document). */
  onResponseSent?: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => void;
  /** Sees every request once its body is read, before its handler (tests write their traffic down). */
  onRequestRead?: (request: FastifyRequest) => void;
  /**
   * The schema compilers (src/wire/schema-compilers.ts); by default the build's precompiled
   * functions, compiling what they lack. The tests' apps share one, and so what they compiled.
   */
  compilersFactory?: NonNullable<FastifyServerOptions['schemaController']>['compilersFactory'];
}

/** TRUST_PROXY as Fastify takes it: a hop count trusts that many proxies nearest to the service. */
function trustedProxies(
  setting: boolean | number | string,
): boolean | string | ((address: string, hop: number) => boolean) {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting;
}

/** Every operator route can answer 429 (operatorGuard); the API reference says so. */
function documentOperatorThrottle(route: RouteOptions): void {
  const response = route.schema?.response as Record<number, unknown> | undefined;
  if (response && response[429] === undefined) {
    response[429] = Type.Ref('ApiError', {
      description: 'Too many failed authentications from this address (too_many_failed_authentications).',
    });
  }
}

/**
 * Field names matched case-insensitively before validation (docs/decisions.md, "Field names"),
 * and U+0000 refused in a path or query the route reads.
 */
function matchFieldNames(request: FastifyRequest): void {
  const schema = request.routeOptions.schema;
  if (!schema) return;
  // U+0000 in the path or query (percent-encoded) of a route that reads them.
  if ((schema.params || schema.querystring) && (hasNul(request.params) || hasNul(request.query))) {
    throw new AppError('invalidBody', NUL_REFUSED);
  }
  if (schema.body && request.body !== undefined) {
    const normalised = normaliseBody(request.body, schema.body as Schema);
    if (normalised !== request.body) {
      request.body = normalised;
      request.sentJson = null;
    }
  }
  if (schema.params) checkNumericTexts(request.params, schema.params as Schema);
  if (schema.querystring && request.query && typeof request.query === 'object') {
    request.query = normaliseQuery(request.query as Record<string, unknown>, schema.querystring as Schema);
  }
}

/** Builds the whole service without listening: what server.ts starts and tests inject into. */
export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const renderOptions = { exposeErrorDetails: ctx.config.exposeErrorDetails };
  const logger = options.logger ?? { level: ctx.config.logLevel };
  const app = Fastify({
    logger:
      logger === false ? false : { ...(logger === true ? {} : logger), serializers: requestLogSerializers },
    bodyLimit: ctx.config.bodyLimitBytes,
    // Request-Id: the caller's X-Request-Id when sane, else one made (src/wire/request-id.ts).
    requestIdHeader: false,
    genReqId: requestIdOf,
    // Log lines name it requestId (Fastify's own label is reqId).
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    // A request that comes while the server closes is served (src/wire/request-limits.ts, drainOnClose).
    return503OnClosing: false,
    trustProxy: trustedProxies(ctx.config.trustProxy),
    ...serverTimeOptions(ctx.config),
    frameworkErrors: frameworkErrorHandler(renderOptions),
    clientErrorHandler,
    schemaController: {
      compilersFactory:
        options.compilersFactory ?? schemaCompilers({ precompiled: loadPrecompiledSchemas() }),
    },
    ajv: {
      customOptions: {
        // xml names the elements of XML documents; the OpenAPI document carries it too.
        keywords: ['xml'],
        coerceTypes: 'array',
        useDefaults: true,
        removeAdditional: false,
        // Every problem of a request is listed, each with its field's pointer (error-render.ts).
        allErrors: true,
      },
    },
  });
  app.decorate('ctx', ctx);
  // Every answer of every interface names its request (before any other hook can answer).
  // Callback hooks where nothing is waited for: an async hook costs a promise and a turn of the
  // microtask queue per request (docs/performance.md, the basket upload with 100 campaigns).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
  // The answers the database gave in a turn of the event loop go out before the requests read in
  // that turn are served (src/wire/answers-first.ts).
  answersFirst(app);
  app.decorate('services', createServices(ctx));
  applyServerLimits(app, ctx.config);
  // The outbox is sent by every server process that does not opt out (docs/decisions.md).
  if (!ctx.config.outboxDisabled) {
    app.addHook('onReady', async () => app.services.outbox.dispatcher.start(app.log));
  }
  app.addHook('onClose', async () => app.services.outbox.dispatcher.stop());
  let backups: ScheduledBackups | null = null;
  // PGlite runs no autovacuum: the server keeps the planner's statistics (planner-statistics.ts).
  if (ctx.database.kind === 'pglite') {
    const statistics = new PlannerStatistics(ctx.database.db, ctx.config.embeddedAnalyzeEveryMs);
    app.addHook('onReady', async () => statistics.start(app.log));
    app.addHook('onClose', async () => statistics.stop());
    // With BACKUP_DIR, the server's own backups of it (store/backups.ts).
    const { backupDir, backupEveryMinutes, backupKeep } = ctx.config;
    if (backupDir !== null) {
      const scheduled = new ScheduledBackups(ctx.database, ctx.clock, {
        dir: backupDir,
        everyMinutes: backupEveryMinutes,
        keep: backupKeep,
      });
      app.addHook('onReady', async () => scheduled.start(app.log));
      app.addHook('onClose', async () => scheduled.stop());
      backups = scheduled;
    }
  }
  // First of the body hooks: it watches the bytes as they come off the wire.
  registerBodyPace(app, ctx.config);
  // Integers in requests stay within what the service and the database hold (request-guards.ts).
  app.addHook('onRoute', (route) => {
    const schema = route.schema;
    if (!schema) return;
    for (const part of ['body', 'querystring', 'params', 'headers'] as const) {
      if (schema[part] !== undefined) schema[part] = boundIntegers(schema[part]);
    }
  });
  const read = options.onRequestRead;
  if (read) {
    app.addHook('preHandler', async (request) => {
      read(request);
    });
  }
  const observe = options.onResponseSent;
  if (observe) {
    app.addHook('onSend', async (request, reply, payload) => {
      observe(request, reply, payload);
      return payload;
    });
  }

  app.addSchema(PosErrorBody);
  app.addSchema(ApiErrorBody);

  // Request bodies: gzip, deflate or br; the body limit counts the decompressed bytes.
  await app.register(compress, {
    global: true,
    encodings: ['gzip', 'deflate'],
    requestEncodings: ['gzip', 'deflate', 'br'],
    threshold: 1024,
    onUnsupportedRequestEncoding: () => new AppError('unsupportedEncoding'),
    // Called as (encoding, request, error). A body cut off for its pace keeps its own error (408).
    onInvalidRequestPayload: (encoding, _request, error) =>
      error instanceof AppError
        ? error
        : new AppError('invalidBody', `The body is not valid ${encoding} data.`),
  });
  await app.register(
    swagger,
    openApiOptions(ctx.config.publicBaseUrl, {
      metricsToken: ctx.config.metricsToken !== null,
      webhooks: webhookDocuments(apiExamples.webhooks),
      schemas: webhookComponents(),
      examples: apiExamples,
    }),
  );
  await registerApiReference(app);

  registerJsonParser(app);

  // Field names are matched case-insensitively before validation (docs/decisions.md, "Field names").
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      matchFieldNames(request);
    } catch (err) {
      done(err as Error);
      return;
    }
    done();
  });

  // Each interface renders its own errors in its scope; everything else (operator, ops) as the
  // operator API does.
  registerErrorRendering(app, sendApiError, renderOptions);

  const registry = registerMetrics(app, ctx.database, app.services.writes, backups);
  app.decorate('metricsRegistry', registry);
  await app.register(opsRoutes(registry, ctx.config));

  await app.register(
    async (admin) => {
      // Its unknown paths are the root's 404 (same format), answered without the token as before.
      registerErrorRendering(admin, sendApiError, renderOptions, { notFound: false });
      admin.addHook('onRoute', documentOperatorThrottle);
      // Before the body is read: a caller without the token never costs a decompression or a parse.
      admin.addHook('onRequest', operatorGuard(ctx, registry));
      await admin.register(adminMerchantRoutes);
      await admin.register(adminTerminalRoutes);
      await admin.register(adminReceiptDetailsRoutes);
      await admin.register(adminProfileRoutes);
      await admin.register(adminCampaignRoutes);
      await admin.register(adminCampaignCodeRoutes);
      await admin.register(adminCheckoutClientRoutes);
      await admin.register(adminPortalUserRoutes);
      await admin.register(adminBasketRoutes);
      await admin.register(adminBackupRoutes);
    },
    { prefix: '/api/admin/v1' },
  );

  await app.register(
    async (pos) => {
      registerErrorRendering(pos, sendPosError, renderOptions);
      registerPosAuth(pos, app.services.terminals.auth);
      registerPosWire(pos);
      await pos.register(merchantRoutes);
      await pos.register(trackingUnitRoutes);
      await pos.register(basketRoutes);
      await pos.register(tokenRoutes);
      await pos.register(sortimentRoutes);
    },
    { prefix: '/api/pos/v3' },
  );

  // Checkout v1: its own authentication and error format (docs/decisions.md, "Checkout v1").
  await app.register(
    async (checkout) => {
      registerErrorRendering(checkout, sendApiError, renderOptions);
      registerCheckoutAuth(checkout, ctx);
      await checkout.register(checkoutOrderRoutes);
      await checkout.register(checkoutProfileRoutes);
      await checkout.register(checkoutListRoutes);
      await checkout.register(webhookRoutes(''));
    },
    { prefix: '/api/v1' },
  );
  // The seed names webhook registration at /webhooks, outside /api/v1.
  await app.register(async (hooks) => {
    registerErrorRendering(hooks, sendApiError, renderOptions, { notFound: false });
    registerCheckoutAuth(hooks, ctx);
    await hooks.register(webhookRoutes('AtRoot'));
  });
  // The merchant portal: its pages at /portal, its JSON API at /portal/api/v1 (docs/decisions.md).
  await registerPortal(app, renderOptions);

  // Other versions of the POS interface are not served, but answer in its format.
  await app.register(async (pos) => registerErrorRendering(pos, sendPosError, renderOptions), {
    prefix: '/api/pos',
  });

  // Pages for people (receipts, the consumer portal) and the portal's JSON call.
  await app.register(async (web) => {
    // Every answer of the consumer's side carries the pages' security headers (src/wire/page-security.ts).
    securePages(web, CONSUMER_PAGES);
    await web.register(cookie);
    await web.register(formbody, { bodyLimit: 16 * 1024 });
    await web.register(async (pages) => {
      pages.setErrorHandler(htmlErrorHandler);
      await pages.register(stylesheetRoutes);
      await pages.register(receiptRoutes);
      await pages.register(meRoutes);
    });
    await web.register(
      async (api) => {
        registerErrorRendering(api, sendApiError, renderOptions);
        await api.register(mePushRoutes);
      },
      { prefix: '/api/me/v1' },
    );
  });
  // The sign-in links that answered requests left to write are written and mailed before the
  // mailer closes, and the database after it (src/server.ts); sends past the grace are cut off.
  app.addHook('onClose', async () => {
    if (await app.services.notifications.afterAnswer.close())
      app.log.warn('cutting off the sign-in mails in flight to stop');
    app.services.notifications.mailer.close();
  });

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
