import compress from '@fastify/compress';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { requireAdmin } from './admin/auth.js';
import { adminCampaignRoutes } from './admin/campaigns.routes.js';
import { adminMerchantRoutes } from './admin/merchants.routes.js';
import { adminProfileRoutes } from './admin/profiles.routes.js';
import type { AppContext } from './context.js';
import { registerMetrics } from './ops/metrics.js';
import { opsRoutes } from './ops/ops.routes.js';
import { basketRoutes } from './pos/baskets.routes.js';
import { merchantRoutes } from './pos/merchants.routes.js';
import { tokenRoutes } from './pos/tokens.routes.js';
import { sortimentRoutes } from './pos/sortiments.routes.js';
import { trackingUnitRoutes } from './pos/tracking-units.routes.js';
import { AppError } from './shared/errors.js';
import { registerApiReference } from './wire/api-reference.js';
import { openApiOptions } from './wire/openapi.js';
import { registerJsonParser } from './wire/content-parsers.js';
import { sendError } from './wire/error-render.js';
import { type Schema, normaliseBody, normaliseQuery } from './wire/normalise.js';
import { registerPosWire } from './wire/pos-wire.js';
import { NUL_REFUSED, boundIntegers, hasNul } from './wire/request-guards.js';
import { ApiErrorBody, PosErrorBody } from './wire/schemas.js';

export interface BuildOptions {
  /** pino options, or false for no logs (tests). */
  logger?: boolean | Record<string, unknown>;
  /** Sees every response before it is sent (tests check them against the OpenAPI document). */
  onResponseSent?: (request: FastifyRequest, reply: FastifyReply, payload: unknown) => void;
}

/** Builds the whole service without listening: what server.ts starts and tests inject into. */
export async function buildApp(ctx: AppContext, options: BuildOptions = {}): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? { level: ctx.config.logLevel },
    bodyLimit: ctx.config.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    return503OnClosing: true,
    ajv: {
      customOptions: {
        // xml names the elements of XML documents; the OpenAPI document carries it too.
        keywords: ['xml'],
        coerceTypes: 'array',
        useDefaults: true,
        removeAdditional: false,
        allErrors: false,
      },
    },
  });
  app.decorate('ctx', ctx);
  // Integers in requests stay within what the service and the database hold (request-guards.ts).
  app.addHook('onRoute', (route) => {
    const schema = route.schema;
    if (!schema) return;
    for (const part of ['body', 'querystring', 'params', 'headers'] as const) {
      if (schema[part] !== undefined) schema[part] = boundIntegers(schema[part]);
    }
  });
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
    onInvalidRequestPayload: (_request, encoding) =>
      new AppError('invalidBody', `The body is not valid ${encoding} data.`),
  });
  await app.register(swagger, openApiOptions(ctx.config.publicBaseUrl));
  await registerApiReference(app);

  registerJsonParser(app);

  // Field names are matched case-insensitively before validation (CONTRACT section 0).
  app.addHook('preValidation', async (request) => {
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
    if (schema.querystring && request.query && typeof request.query === 'object') {
      request.query = normaliseQuery(request.query as Record<string, unknown>, schema.querystring as Schema);
    }
  });

  const renderOptions = { production: ctx.config.production };
  app.setErrorHandler((err, request, reply) => sendError(request, reply, err, renderOptions));
  app.setNotFoundHandler((request, reply) =>
    sendError(request, reply, new AppError('routeNotFound'), renderOptions),
  );

  const registry = registerMetrics(app, ctx.database);
  await app.register(opsRoutes(registry));

  await app.register(
    async (admin) => {
      admin.addHook('onRequest', async (request) => requireAdmin(ctx, request));
      await admin.register(adminMerchantRoutes);
      await admin.register(adminProfileRoutes);
      await admin.register(adminCampaignRoutes);
    },
    { prefix: '/api/admin/v1' },
  );

  await app.register(
    async (pos) => {
      registerPosWire(pos);
      await pos.register(merchantRoutes);
      await pos.register(trackingUnitRoutes);
      await pos.register(basketRoutes);
      await pos.register(tokenRoutes);
      await pos.register(sortimentRoutes);
    },
    { prefix: '/api/pos/v3' },
  );

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());
  return app;
}
