import type { FastifyRequest } from 'fastify';
import type { AuthenticatedUnit, UnitCredentials } from '../merchants/terminal.js';
import type { TokenAuthorisation } from '../merchants/terminal-signature.js';
import { AppError } from '../shared/errors.js';

/**
 * The credentials of the POS interface v3 as its requests carry them: the DevKey and
 * trackingUnitId headers, and the SecurityToken (MD5) or SecurityToken-V2 of operations that move
 * value. What they are checked against is the terminal domain's (src/merchants/terminal.ts,
 * terminal-signature.ts).
 */

export function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name.toLowerCase()];
  const value = Array.isArray(v) ? v[0] : v;
  return value === undefined || value === '' ? undefined : value;
}

/** The DevKey header; missing: 401 / 1001. */
export function devKeyOf(request: FastifyRequest): string {
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
