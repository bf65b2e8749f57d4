import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import type { Config } from '../config.js';
import { AppError } from '../shared/errors.js';
import { databaseAnswers } from '../store/readiness.js';
import { answer, auth } from '../wire/openapi.js';
import { apiErrors } from '../wire/schemas.js';
import { metricsTokenAccepted } from './metrics-server.js';

/**
 * Probes and scrapes come every few seconds: their requests are logged at warn and above only, so
 * they do not bury the requests of tills and operators in the info log.
 */
const PROBE_LOG_LEVEL = 'warn';

export const opsRoutes = (registry: Registry, config: Config): FastifyPluginAsync =>
  async function ops(fastify) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/healthz',
      {
        logLevel: PROBE_LOG_LEVEL,
        schema: {
          tags: ['Health probes'],
          summary: 'Liveness: the process answers',
          operationId: 'checkLiveness',
          security: auth.none,
          response: {
            200: answer(
              'The process is alive.',
              Type.Object({ status: Type.Literal('ok') }, { title: 'Liveness' }),
            ),
          },
        },
      },
      async () => ({ status: 'ok' as const }),
    );

    app.get(
      '/readyz',
      {
        logLevel: PROBE_LOG_LEVEL,
        schema: {
          tags: ['Health probes'],
          summary: 'Readiness: the database answers',
          operationId: 'checkReadiness',
          security: auth.none,
          response: {
            200: answer(
              'Ready to serve: the database answers.',
              Type.Object({ status: Type.Literal('ready'), database: Type.String() }, { title: 'Readiness' }),
            ),
            ...apiErrors({ 503: 'Database unreachable (service_unavailable).' }),
          },
        },
      },
      async (request) => {
        const answers = await databaseAnswers(app.ctx.database.db, (err) =>
          request.log.warn({ err }, 'readiness probe: the database does not answer'),
        );
        if (!answers) {
          throw new AppError('unavailable', 'The database does not answer.');
        }
        return { status: 'ready' as const, database: app.ctx.database.kind };
      },
    );

    // With METRICS_PORT, /metrics is served there only (src/ops/metrics-server.ts).
    if (config.metricsPort !== null) return;
    app.get(
      '/metrics',
      {
        logLevel: PROBE_LOG_LEVEL,
        schema: {
          tags: ['Health probes'],
          summary: 'Prometheus metrics',
          operationId: 'readMetrics',
          security: config.metricsToken === null ? auth.none : auth.metrics,
          description:
            'Served on PORT unless METRICS_PORT moves it to a port of its own; with METRICS_TOKEN it needs ' +
            '`Authorization: Bearer <METRICS_TOKEN>`.',
          response: {
            200: {
              description: 'Prometheus text exposition format.',
              content: { 'text/plain': { schema: Type.String() } },
            },
            401: {
              description: 'METRICS_TOKEN is set and the request does not carry it (unauthorized).',
              content: { 'application/json': { schema: Type.Ref('ApiError') } },
            },
          },
        },
      },
      async (request, reply) => {
        if (!metricsTokenAccepted(config.metricsToken, request.headers.authorization)) {
          throw new AppError('unauthorized');
        }
        reply.type(registry.contentType);
        return registry.metrics();
      },
    );
  };
