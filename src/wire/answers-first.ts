import type { FastifyInstance } from 'fastify';

/**
 * Answers before new work (docs/decisions.md, "Answers before new work"): a request's body is
 * read, and the request served, in the event loop's check phase, after everything its poll phase
 * found ready with it. A batch's outcomes that came from the database in the same turn as new
 * requests are then answered at once, instead of waiting while each of those requests is parsed,
 * checked and priced; the requests are served in the order they came, all of a turn's going
 * together into the batch after it (src/shared/group-commit.ts).
 */
export function answersFirst(app: FastifyInstance): void {
  app.addHook('preParsing', (_request, _reply, payload, done) => {
    setImmediate(done, null, payload);
  });
}
