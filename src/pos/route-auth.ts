import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthenticatedUnit, TerminalAuth, UnitCredentials } from '../merchants/terminal.js';
import type { TokenAuthorisation } from '../merchants/terminal-signature.js';
import { AppError } from '../shared/errors.js';
import { auth as securitySchemes } from '../wire/openapi.js';

/**
 * The credentials of the POS interface v3 as its requests carry them: the DevKey and
 * trackingUnitId headers, and the SecurityToken (MD5) or SecurityToken-V2 of operations that move
 * value. What they are checked against is the terminal domain's (src/merchants/terminal.ts,
 * terminal-signature.ts).
 */

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name.toLowerCase()];
  const value = Array.isArray(v) ? v[0] : v;
  return value === undefined || value === '' ? undefined : value;
}

/** The DevKey header; missing: 401 / 1001. */
function devKeyOf(request: FastifyRequest): string {
  const devKey = header(request, 'DevKey');
  if (!devKey) throw new AppError('devKeyInvalid');
  return devKey;
}

/** The DevKey and trackingUnitId headers; missing ones answer 401 (1001, 1002). */
export function unitCredentials(request: FastifyRequest): UnitCredentials {
  const devKey = devKeyOf(request);
  const unitId = header(request, 'trackingUnitId');
  if (!unitId) throw new AppError('trackingUnitInvalid');
  return { devKey, unitId };
}

/**
 * Checks what authorises an operation that moves value, and returns it so that the booking can
 * record it: the MD5 SecurityToken of `input`, or a SecurityToken-V2 over the request as it came
 * off the wire (method, path with query, body bytes).
 */
export async function verifySecurityToken(
  request: FastifyRequest,
  unit: AuthenticatedUnit,
  input: string,
): Promise<TokenAuthorisation> {
  const v2 = header(request, 'SecurityToken-V2');
  return request.server.services.terminals.signatures.verify(
    unit,
    {
      md5: header(request, 'SecurityToken'),
      v2:
        v2 === undefined
          ? undefined
          : {
              header: v2,
              request: {
                method: request.method,
                pathWithQuery: request.url,
                body: Buffer.from(request.rawBody ?? '', 'utf8'),
              },
            },
    },
    input,
  );
}

/**
 * How a POS route authenticates its caller, declared in its options (`config: { auth }`):
 * - `devKey`: the DevKey header alone (merchant info, create outlet, registration);
 * - `unit`: DevKey and trackingUnitId, activated or not (re-assign);
 * - `activeUnit`: DevKey and trackingUnitId of an activated unit, looked up afresh (everything else:
 *   the operator can deactivate a terminal, revoke its DevKey or rotate its checksumSecret at any
 *   moment, and no instance may act on an answer from before that; docs/decisions.md,
 *   "SecurityTokens and credentials");
 * - `rememberedUnit`: the same, but a remembered answer may stand in for the lookup: only for the
 *   basket upload, the balance bookings and the grant, whose one write statement re-checks what
 *   the answer says and which start over on a fresh lookup when it no longer holds.
 *
 * The POS scope checks it in an onRequest hook, before the body is decompressed or parsed
 * (docs/decisions.md, "Authentication before the body"), so a caller without credentials never
 * costs more than a header lookup. A route that declares nothing cannot be registered. The API
 * reference shows the security scheme of the declared kind, so the two cannot disagree; only an
 * operation that is also signed (a SecurityToken, checked by the operation) names its own.
 */
export type PosAuth = 'devKey' | 'unit' | 'activeUnit' | 'rememberedUnit';

/** The security schemes of the API reference for each kind of authentication. */
const DOCUMENTED: Readonly<Record<PosAuth, Record<string, string[]>[]>> = {
  devKey: securitySchemes.devKey,
  unit: securitySchemes.unit,
  activeUnit: securitySchemes.unit,
  rememberedUnit: securitySchemes.unit,
};

const isPosAuth = (auth: unknown): auth is PosAuth =>
  typeof auth === 'string' && Object.hasOwn(DOCUMENTED, auth);

/** How each kind of authentication refuses, as the API reference states it (posErrors). */
export const AUTH_REFUSALS = {
  devKey: { 401: 'DevKey missing or unknown (1001) or revoked (1043).' },
  activeUnit: {
    401: 'DevKey or trackingUnitId missing, unknown or not matching (1001, 1002); DevKey revoked (1043).',
    403: 'trackingUnit not activated (1004) or deactivated (1042).',
  },
  /** An active unit whose operation is signed with a SecurityToken (MD5 or V2). */
  signedUnit: {
    401:
      'DevKey, trackingUnitId or SecurityToken missing or wrong (1001, 1002, 1003); DevKey revoked (1043); ' +
      'SecurityToken-V2 required (1044), malformed or wrong (1045), outside 300 s (1046) or seen before (1047).',
    403: 'trackingUnit not activated (1004) or deactivated (1042).',
  },
} as const;

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
export function registerPosAuth(pos: FastifyInstance, terminals: TerminalAuth): void {
  pos.decorateRequest('posCaller', null);
  pos.addHook('onRoute', (route) => {
    const auth: unknown = route.config?.auth;
    if (!isPosAuth(auth)) {
      throw new Error(
        `POS route ${String(route.method)} ${route.url} must declare config.auth (${Object.keys(DOCUMENTED).join(', ')})`,
      );
    }
    if (route.schema && route.schema.security === undefined) route.schema.security = DOCUMENTED[auth];
  });
  // A callback hook, not an async one: the upload's usual case (a remembered terminal) is decided
  // in the same turn, without a promise between the headers and the body.
  pos.addHook('onRequest', (request, _reply, done) => {
    let pending: Promise<void> | undefined;
    try {
      pending = authenticate(request, terminals);
    } catch (err) {
      done(err as Error);
      return;
    }
    if (pending === undefined) done();
    else pending.then(() => done(), done);
  });
}

/**
 * Checks the credentials a request's route declares and sets `request.posCaller`; undefined when
 * that was decided at once (a remembered terminal), else the promise of the lookup. Throws the
 * refusals of the headers alone.
 */
function authenticate(request: FastifyRequest, terminals: TerminalAuth): Promise<void> | undefined {
  // No route, nothing to authenticate for: answered before any body is read.
  if (request.is404) throw new AppError('routeNotFound');
  const auth = request.routeOptions.config.auth;
  if (auth === 'devKey') {
    return terminals.devKey(devKeyOf(request)).then((devKeyId) => {
      request.posCaller = { kind: 'devKey', devKeyId };
    });
  }
  if (auth === 'unit' || auth === 'activeUnit') {
    const credentials = unitCredentials(request);
    return terminals.lookup(credentials, { requireActive: auth === 'activeUnit' }).then((unit) => {
      request.posCaller = { kind: 'unit', devKeyId: unit.devKeyId, credentials, unit, fresh: true };
    });
  }
  if (auth === 'rememberedUnit') {
    const credentials = unitCredentials(request);
    const remembered = terminals.rememberedNow(credentials);
    if (remembered) {
      request.posCaller = {
        kind: 'unit',
        devKeyId: remembered.devKeyId,
        credentials,
        unit: remembered,
        fresh: false,
      };
      return undefined;
    }
    return terminals.lookupAndRemember(credentials).then((unit) => {
      request.posCaller = { kind: 'unit', devKeyId: unit.devKeyId, credentials, unit, fresh: true };
    });
  }
  // Registration refuses such a route; reaching here means a route bypassed it.
  throw new Error(`${request.routeOptions.url ?? request.url} declares no authentication`);
}
