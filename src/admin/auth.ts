import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError } from '../shared/errors.js';

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** `Authorization: Bearer <ADMIN_TOKEN>` on every operator call. */
export function requireAdmin(ctx: AppContext, request: FastifyRequest): void {
  const auth = request.headers.authorization ?? '';
  const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
  if (!m?.[1]) throw new AppError('unauthorized');
  const given = Buffer.from(hashToken(m[1].trim()), 'hex');
  const expected = Buffer.from(ctx.adminTokenHash, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new AppError('unauthorized');
}
