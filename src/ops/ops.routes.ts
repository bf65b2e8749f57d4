import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import type { Registry } from 'prom-client';
import { Type } from 'typebox';
import { AppError } from '../shared/errors.js';
import { databaseAnswers } from '../store/readiness.js';
import { apiErrors } from '../wire/schemas.js';

export const opsRoutes = (registry: Registry): FastifyPluginAsync =>
  async function ops(fastify) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

    app.get(
      '/healthz',
      {
        schema: {
          tags: ['Operations'],
          summary: 'Liveness: the process answers',
          response: { 200: Type.Object({ status: Type.Literal('ok') }) },
        },
      },
      async () => ({ status: 'ok' as const }),
    );

    app.get(
      '/readyz',
      {
        schema: {
          tags: ['Operations'],
          summary: 'Readiness: the database answers',
          response: {
            200: Type.Object({ status: Type.Literal('ready'), database: Type.String() }),
            ...apiErrors({ 503: 'Database unreachable (service_unavailable).' }),
          },
        },
      },
      async () => {
        if (!(await databaseAnswers(app.ctx.database.db))) {
          throw new AppError('unavailable', 'The database does not answer.');
        }
        return { status: 'ready' as const, database: app.ctx.database.kind };
      },
    );

    app.get(
      '/metrics',
      {
        schema: {
          tags: ['Operations'],
          summary: 'Prometheus metrics',
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
