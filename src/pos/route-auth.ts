import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { AppError } from '../shared/errors.js';
import {
  type AuthenticatedUnit,
  type UnitCredentials,
  authenticateActiveUnit,
  authenticateDevKey,
  authenticateUnit,
  rememberedUnit,
  unitCredentials,
} from './auth.js';

/**
 * How a POS route authenticates its caller, declared in its options (`config: { auth }`):
 * - `devKey`: the DevKey header alone (merchant info, create outlet, registration);
 * - `unit`: DevKey and trackingUnitId, activated or not (re-assign);
 * - `activeUnit`: DevKey and trackingUnitId of an activated unit, looked up afresh (everything else);
 * - `rememberedUnit`: the same, but a remembered answer may stand in for the lookup: only for the
 *   basket upload, the balance bookings and the grant, whose one write statement re-checks what
 *   the answer says and which start over on a fresh lookup when it no longer holds.
 *
 * The POS scope checks it in an onRequest hook, before the body is decompressed or parsed
 * (docs/decisions.md, "Authentication before the body"), so a caller without credentials never
 * costs more than a header lookup. A route that declares nothing cannot be registered.
 */
export type PosAuth = 'devKey' | 'unit' | 'activeUnit' | 'rememberedUnit';

const POS_AUTH: readonly string[] = ['devKey', 'unit', 'activeUnit', 'rememberedUnit'] satisfies PosAuth[];

/** The caller a POS route's hook authenticated. */
export type PosCaller =
  | { readonly kind: 'devKey'; readonly devKeyId: number }
  | {
      readonly kind: 'unit';
      readonly devKeyId: number;
      readonly credentials: UnitCredentials;
      readonly unit: AuthenticatedUnit;
      /** True when the unit was read from the database for this request, not from the cache. */
      readonly fresh: boolean;
    };

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: PosAuth;
  }
  interface FastifyRequest {
    posCaller: PosCaller | null;
  }
}

/** The DevKey of the caller of a route that declares any authentication. */
export function callerDevKeyId(request: FastifyRequest): number {
  const caller = request.posCaller;
  if (!caller) throw new Error(`${request.routeOptions.url ?? request.url} declares no authentication`);
  return caller.devKeyId;
}

/** The unit of the caller of a route that declares `unit` or `activeUnit`. */
export function callerUnit(request: FastifyRequest): Extract<PosCaller, { kind: 'unit' }> {
  const caller = request.posCaller;
  if (caller?.kind !== 'unit') {
    throw new Error(`${request.routeOptions.url ?? request.url} declares no unit authentication`);
  }
  return caller;
}

/**
 * Authentication of the POS scope: refuses a route registered without `config.auth`, and checks
 * the declared credentials of every request before its body is read.
 */
export function registerPosAuth(pos: FastifyInstance, ctx: AppContext): void {
  pos.decorateRequest('posCaller', null);
  pos.addHook('onRoute', (route) => {
    const auth: unknown = route.config?.auth;
    if (typeof auth !== 'string' || !POS_AUTH.includes(auth)) {
      throw new Error(
        `POS route ${String(route.method)} ${route.url} must declare config.auth (${POS_AUTH.join(', ')})`,
      );
    }
  });
  pos.addHook('onRequest', async (request) => {
    // No route, nothing to authenticate for: answered before any body is read.
    if (request.is404) throw new AppError('routeNotFound');
    const auth = request.routeOptions.config.auth;
    if (auth === 'devKey') {
      request.posCaller = { kind: 'devKey', devKeyId: await authenticateDevKey(ctx, request) };
      return;
    }
    if (auth === 'unit') {
      const unit = await authenticateUnit(ctx, request, { requireActive: false });
      request.posCaller = {
        kind: 'unit',
        devKeyId: unit.devKeyId,
        credentials: unitCredentials(request),
        unit,
        fresh: true,
      };
      return;
    }
    if (auth === 'activeUnit') {
      const unit = await authenticateActiveUnit(ctx, request);
      request.posCaller = {
        kind: 'unit',
        devKeyId: unit.devKeyId,
        credentials: unitCredentials(request),
        unit,
        fresh: true,
      };
      return;
    }
    if (auth === 'rememberedUnit') {
      const credentials = unitCredentials(request);
      const { unit, remembered } = await rememberedUnit(ctx, credentials);
      request.posCaller = { kind: 'unit', devKeyId: unit.devKeyId, credentials, unit, fresh: !remembered };
      return;
    }
    // Registration refuses such a route; reaching here means a route bypassed it.
    throw new Error(`${request.routeOptions.url ?? request.url} declares no authentication`);
  });
}
