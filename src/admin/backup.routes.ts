import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { backupArchive, backupFileName } from '../store/backups.js';
import { AppError } from '../shared/errors.js';
import { apiErrors } from '../wire/schemas.js';

/**
 * A backup of the embedded database on the operator API (docs/decisions.md, "Backups of the
 * embedded database"): its data directory as a gzipped tar archive, read while no statement runs.
 */
export const adminBackupRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { database, clock } = app.ctx;

  app.get(
    '/backup',
    {
      schema: {
        tags: ['Operator: service'],
        summary: 'A backup of the embedded database',
        operationId: 'backupDatabase',
        description:
          'The embedded database (PGlite) in `DATA_DIR` as a gzipped tar archive of its data ' +
          'directory, every committed change in it: taken after a checkpoint, while no statement ' +
          'runs, so requests wait for the copy (0.16 s for a 44 MB data directory on two cores; the gzip ' +
          'after it does not hold them). Restore it by unpacking it into `DATA_DIR/pglite` of a ' +
          'stopped service (README, "Backups"). A service on PostgreSQL answers 409: back it up ' +
          "with PostgreSQL's own tools.",
        response: {
          200: {
            description: 'The data directory, a tar archive, gzipped.',
            content: {
              'application/gzip': { schema: Type.Unsafe<Uint8Array>({ type: 'string', format: 'binary' }) },
            },
          },
          ...apiErrors({
            401: 'Authorization missing or wrong (unauthorized).',
            409: 'The service keeps its data in PostgreSQL (backup_on_postgres).',
          }),
        },
      },
    },
    async (request, reply) => {
      const archive = await backupArchive(database);
      if (archive === null) throw new AppError('backupOnPostgres');
      const { gzip, ...figures } = archive;
      request.log.info({ ...figures, gzipBytes: gzip.length }, 'backup of the embedded database');
      reply.header('content-disposition', `attachment; filename="${backupFileName(clock.nowMs())}"`);
      reply.header('cache-control', 'no-store');
      return reply.type('application/gzip').send(gzip);
    },
  );
};
