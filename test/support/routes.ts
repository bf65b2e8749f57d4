import type { FastifyInstance } from 'fastify';

/**
 * Every route of an app with its methods, read from Fastify's printed route tree (each line is a
 * path segment under its parent; four characters of indent per level), so that a test can list
 * what an app serves and notice a route it does not know.
 */
export function routesOf(app: FastifyInstance): { path: string; methods: string[] }[] {
  const out: { path: string; methods: string[] }[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([^)]*)\))?$/.exec(line);
    if (!m) continue;
    const depth = (m[1] ?? '').length / 4;
    stack.length = depth;
    stack.push(m[2] ?? '');
    if (m[3] !== undefined) out.push({ path: stack.join(''), methods: m[3].split(', ') });
  }
  return out;
}
