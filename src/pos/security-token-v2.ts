import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { AppError } from '../shared/errors.js';

/**
 * SecurityToken-V2 (docs/security.md, "SecurityTokens, secrets and keys"): the header
 * `SecurityToken-V2: t=<unix seconds>,s=<hex>` where s is the lowercase hex HMAC-SHA256, keyed
 * with the terminal's checksumSecret (its UTF-8 bytes), of
 *
 *   METHOD "\n" path-with-query "\n" t "\n" body-bytes
 *
 * METHOD in upper case, the path with its query exactly as sent in the request line, and the
 * body bytes as sent before any Content-Encoding (empty without a body). Unlike the MD5 token it
 * covers the operation, every parameter and the body, so it cannot be moved to another request;
 * t must lie within 300 s of the server clock, and a signature is accepted once.
 */
export const WINDOW_SECONDS = 300;

/** What authorised a booking: the scheme and the SHA-256 of the token or signature. */
export interface TokenAuthorisation {
  readonly scheme: 'md5' | 'v2';
  readonly sha256: string;
}

export interface SignatureInput {
  readonly method: string;
  readonly pathWithQuery: string;
  readonly timestampSeconds: number;
  readonly body: Buffer;
}

/** The signature a till computes (and the worked example of docs/security.md reproduces). */
export function signatureV2(checksumSecret: string, input: SignatureInput): string {
  return createHmac('sha256', Buffer.from(checksumSecret, 'utf8'))
    .update(`${input.method.toUpperCase()}\n${input.pathWithQuery}\n${input.timestampSeconds}\n`, 'utf8')
    .update(input.body)
    .digest('hex');
}

/** `t=<seconds>,s=<64 hex>` in either order, spaces allowed around the parts; null if malformed. */
export function parseV2Header(value: string): { timestampSeconds: number; signature: string } | null {
  let t: number | null = null;
  let s: string | null = null;
  for (const part of value.split(',')) {
    const m = /^\s*([ts])\s*=\s*([^\s]*)\s*$/.exec(part);
    if (!m) return null;
    if (m[1] === 't') {
      if (t !== null || !/^\d{1,12}$/.test(m[2] ?? '')) return null;
      t = Number(m[2]);
    } else {
      if (s !== null || !/^[0-9a-fA-F]{64}$/.test(m[2] ?? '')) return null;
      s = (m[2] ?? '').toLowerCase();
    }
  }
  return t === null || s === null ? null : { timestampSeconds: t, signature: s };
}

interface SignedUnit {
  readonly unitId: string;
  readonly checksumSecret: string;
}

/**
 * Checks a SecurityToken-V2 header: well formed (1045), within the window (1046), the right
 * signature (1045), and never seen before (1047). Seen signatures are kept in the database until
 * their window has passed, so no instance of the service accepts one twice.
 */
export async function verifySecurityTokenV2(
  ctx: AppContext,
  request: FastifyRequest,
  unit: SignedUnit,
  headerValue: string,
): Promise<TokenAuthorisation> {
  const parsed = parseV2Header(headerValue);
  if (!parsed) throw new AppError('securityTokenV2Invalid');
  const nowMs = ctx.clock.nowMs();
  if (Math.abs(nowMs - parsed.timestampSeconds * 1000) > WINDOW_SECONDS * 1000) {
    throw new AppError('securityTokenV2Expired');
  }
  const expected = Buffer.from(
    signatureV2(unit.checksumSecret, {
      method: request.method,
      pathWithQuery: request.url,
      timestampSeconds: parsed.timestampSeconds,
      body: Buffer.from(request.rawBody ?? '', 'utf8'),
    }),
    'hex',
  );
  const given = Buffer.from(parsed.signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new AppError('securityTokenV2Invalid');
  }
  const expiresAt = new Date((parsed.timestampSeconds + WINDOW_SECONDS) * 1000);
  // One statement: the terminal's expired signatures go, and this one is kept unless seen.
  const kept = await sql<{ signature: string }>`
    WITH purged AS (
      DELETE FROM security_token_signatures
       WHERE tracking_unit_id = ${unit.unitId} AND expires_at < ${new Date(nowMs)})
    INSERT INTO security_token_signatures (tracking_unit_id, signature, expires_at)
    VALUES (${unit.unitId}, ${parsed.signature}, ${expiresAt})
    ON CONFLICT (tracking_unit_id, signature) DO NOTHING
    RETURNING signature`.execute(ctx.database.db);
  if (kept.rows.length === 0) throw new AppError('securityTokenV2Replayed');
  return { scheme: 'v2', sha256: createHash('sha256').update(given).digest('hex') };
}
