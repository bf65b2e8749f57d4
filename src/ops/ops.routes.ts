import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { sql } from 'kysely';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import { AppError } from '../shared/errors.js';
import { answer, auth } from '../wire/openapi.js';
import { apiErrors } from '../wire/schemas.js';

export const opsRoutes = (registry: Registry): FastifyPluginAsync =>
  async function ops(fastify) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/healthz',
      {
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
      async () => {
        try {
          await sql`select 1`.execute(app.ctx.database.db);
        } catch {
          throw new AppError('unavailable', 'The database does not answer.');
        }
        return { status: 'ready' as const, database: app.ctx.database.kind };
      },
    );

    app.get(
      '/metrics',
      {
        schema: {
          tags: ['Health probes'],
          summary: 'Prometheus metrics',
          operationId: 'readMetrics',
          security: auth.none,
          produces: ['text/plain'],
          response: { 200: Type.String({ description: 'Prometheus text exposition format.' }) },
        },
      },
      async (_request, reply) => {
        reply.type(registry.contentType);
        return registry.metrics();
      },
    );
  };
