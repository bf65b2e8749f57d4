import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { brandsWithOutlets } from '../merchants/merchant.store.js';
import { terminalsLastSeen } from '../reports/basket-search.store.js';
import { AppError } from '../shared/errors.js';
import { answer, auth } from '../wire/openapi.js';
import { PageOf, pageErrors, pageQueryFields } from '../wire/paging.js';
import { type PageRequest, pageOf, pageRequest } from '../shared/paging.js';
import { OWNER_ONLY, TerminalSchema, portalErrors } from './schemas.js';
import { requireOwner, requireSession } from './session.js';
import { setTerminalActive } from '../merchants/terminal.service.js';
import { listTerminals } from '../merchants/terminal.store.js';
import type { Session } from '../portal-users/portal-auth.service.js';
import { type ViewDeps, viewDeps } from './views.js';

const TAG = 'Portal: terminals';

/** The merchant's terminals as the portal lists them. */
export async function terminalsView(deps: ViewDeps, s: Session, page?: PageRequest) {
  const { db } = deps;
  const { merchantId } = s;
  const [units, seen, brands] = await Promise.all([
    listTerminals(db, merchantId, page),
    terminalsLastSeen(db, merchantId),
    brandsWithOutlets(db, merchantId),
  ]);
  const outletNames = new Map<number, string | null>();
  for (const b of brands) for (const o of b.outlets) outletNames.set(o.Id, o.Name);
  return units.map((u) => ({
    trackingUnitId: u.trackingUnitId,
    instanceName: u.instanceName,
    outletId: u.outletId,
    outletName: outletNames.get(u.outletId) ?? null,
    devKeyName: u.devKeyName,
    activated: u.activated,
    deactivated: u.deactivated,
    lastSeen: seen.get(u.trackingUnitId) ?? null,
    createdAt: u.createdAt,
  }));
}

export const portalTerminalRoutes: FastifyPluginAsync = async (fastify) => {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db } = app.ctx.database;
  const deps = viewDeps(app);

  app.get(
    '/terminals',
    {
      schema: {
        tags: [TAG],
        summary: "The merchant's terminals: name, outlet, vendor, last seen, activation",
        operationId: 'listPortalTerminals',
        security: auth.portal,
        querystring: Type.Object(pageQueryFields),
        response: {
          200: answer(
            'The registered terminals, oldest first, a page at a time.',
            PageOf(TerminalSchema, 'PortalTerminalPage'),
          ),
          ...portalErrors(pageErrors),
        },
      },
    },
    async (request) => {
      const page = pageRequest('terminals', request.query, ['number', 'string']);
      const rows = await terminalsView(deps, requireSession(request), page);
      return pageOf(
        'terminals',
        rows,
        page.limit,
        (u) => [Date.parse(u.createdAt), u.trackingUnitId],
        (u) => u,
      );
    },
  );

  for (const action of ['activate', 'deactivate'] as const) {
    app.post(
      `/terminals/:trackingUnitId/${action}`,
      {
        schema: {
          tags: [TAG],
          summary:
            action === 'activate'
              ? 'Activate a terminal: it may then upload baskets'
              : 'Deactivate a terminal (owners only): refused on every operation from its next request (1042)',
          operationId: action === 'activate' ? 'activatePortalTerminal' : 'deactivatePortalTerminal',
          security: auth.portalChange,
          params: Type.Object({ trackingUnitId: Type.String({ maxLength: 100 }) }),
          response: {
            200: answer('The terminal after the change.', TerminalSchema),
            ...portalErrors(
              action === 'deactivate'
                ? { 403: OWNER_ONLY, 404: "Terminal unknown, or another merchant's (not_found)." }
                : { 404: "Terminal unknown, or another merchant's (not_found)." },
              { change: true },
            ),
          },
        },
      },
      async (request) => {
        // Staff may bring a new till into service; stopping one that trades is the owner's call.
        const s = action === 'deactivate' ? requireOwner(request) : requireSession(request);
        const id = request.params.trackingUnitId;
        const own = (await listTerminals(db, s.merchantId)).some((u) => u.trackingUnitId === id);
        if (!own) throw new AppError('notFound', 'No terminal under this id.');
        await setTerminalActive(app.services.merchants, id, action === 'activate');
        const after = (await terminalsView(deps, s)).find((u) => u.trackingUnitId === id);
        if (!after) throw new AppError('notFound', 'No terminal under this id.');
        return after;
      },
    );
  }
};
