import type { FastifyRequest } from 'fastify';

/**
 * What the request log says about a request (docs/decisions.md, "Request log"). Paths and queries
 * carry card ids, amounts, one-time passwords and basket ids (`/tokens/{id}/addBalance?balanceToAdd=`),
 * so a request is logged by its route pattern and the names of its query parameters, never their
 * values. A path that matched no route keeps only its plain words.
 */
export function loggedUrl(request: FastifyRequest): string {
  const url = request.url;
  const q = url.indexOf('?');
  const path = q < 0 ? url : url.slice(0, q);
  const route = request.routeOptions?.url;
  const shown =
    route && route !== '*'
      ? route
      : path
          .split('/')
          .map((segment) =>
            segment === '' || /^([a-z][A-Za-z]{0,39}|v[0-9]{1,2})$/.test(segment) ? segment : '*',
          )
          .join('/');
  if (q < 0) return shown;
  const names = [...new URLSearchParams(url.slice(q + 1)).keys()]
    .slice(0, 20)
    .map((name) => `${/^[A-Za-z][A-Za-z0-9_]{0,39}$/.test(name) ? name : '*'}=…`);
  return `${shown}?${names.join('&')}`;
}

export const requestLogSerializers = {
  req(request: FastifyRequest): Record<string, unknown> {
    return {
      method: request.method,
      url: loggedUrl(request),
      remoteAddress: request.ip,
    };
  },
};
