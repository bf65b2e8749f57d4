import type { FastifyInstance } from 'fastify';
import { STYLE, STYLESHEET_PATH, STYLESHEET_VERSION } from './html.js';

/**
 * The style sheet of the receipt and the consumer portal as a file: their Content-Security-Policy
 * allows no inline style (docs/decisions.md, "Gift-card privacy and hardened pages"). The pages
 * link it with its version, so a browser may keep it for a year; another version is another URL.
 */
export async function stylesheetRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: { v?: string } }>(
    STYLESHEET_PATH,
    { schema: { hide: true } },
    async (request, reply) =>
      reply
        .type('text/css; charset=utf-8')
        .header(
          'cache-control',
          request.query.v === STYLESHEET_VERSION ? 'public, max-age=31536000, immutable' : 'no-cache',
        )
        .send(STYLE),
  );
}
