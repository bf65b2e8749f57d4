import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import type { DB } from '../store/schema.js';
import { keepSignature } from './terminal.store.js';

/**
 * What authorises an operation that moves value (docs/decisions.md, "SecurityTokens and
 * credentials"; docs/security.md, "SecurityTokens, secrets and keys").
 *
 * The MD5 SecurityToken of the POS interface v3 (Authentication, step 3): lowercase hex MD5 of
 * input + "qPnsS14" + checksumSecret, where the input depends on the operation.
 *
 * SecurityToken-V2: the header `SecurityToken-V2: t=<unix seconds>,s=<hex>` where s is the
 * lowercase hex HMAC-SHA256, keyed with the terminal's checksumSecret (its UTF-8 bytes), of
 *
 *   METHOD "\n" path-with-query "\n" t "\n" body-bytes
 *
 * METHOD in upper case, the path with its query exactly as sent in the request line, and the
 * body bytes as sent before any Content-Encoding (empty without a body). Unlike the MD5 token it
 * covers the operation, every parameter and the body, so it cannot be moved to another request;
 * t must lie within 300 s of the server clock, and a signature is accepted once.
 */
export const WINDOW_SECONDS = 300;

/** The SecurityToken constant of the POS interface v3 (Authentication, step 3). */
const SECURITY_SALT = 'qPnsS14';

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

/** The request a SecurityToken-V2 signs, as it came off the wire. */
export interface SignedRequest {
  readonly method: string;
  readonly pathWithQuery: string;
  readonly body: Buffer;
}

/** The tokens a request carries (absent ones undefined), V2 with the request it signs. */
export interface PresentedTokens {
  readonly md5?: string;
  readonly v2?: { readonly header: string; readonly request: SignedRequest };
}

/** The facts of the terminal a token is checked against. */
export interface SigningUnit {
  readonly unitId: string;
  readonly checksumSecret: string;
  readonly requireSecurityTokenV2: boolean;
}

/** SecurityToken = lowercase hex MD5 of input + "qPnsS14" + checksumSecret. */
export function securityToken(input: string, checksumSecret: string): string {
  return createHash('md5').update(`${input}${SECURITY_SALT}${checksumSecret}`, 'utf8').digest('hex');
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

/**
 * Checks the tokens of operations that move value, with the record of accepted V2 signatures in
 * the database (so that no instance accepts one twice). One per app, built by the composition
 * root (src/services.ts).
 */
export class TerminalSignatures {
  constructor(
    private readonly db: Kysely<DB>,
    private readonly clock: Clock,
  ) {}

  /**
   * A `SecurityToken-V2` header is checked as such on any terminal; a terminal that requires it
   * gets 401 / 1044 without one. Otherwise the MD5 SecurityToken of `input`, compared
   * case-insensitively and in constant time; missing or wrong: 401 / 1003.
   */
  async verify(unit: SigningUnit, tokens: PresentedTokens, input: string): Promise<TokenAuthorisation> {
    if (tokens.v2 !== undefined) return this.verifyV2(unit, tokens.v2.request, tokens.v2.header);
    if (unit.requireSecurityTokenV2) throw new AppError('securityTokenV2Required');
    if (tokens.md5 === undefined) throw new AppError('securityTokenInvalid');
    const expected = Buffer.from(securityToken(input, unit.checksumSecret), 'utf8');
    const actual = Buffer.from(tokens.md5.toLowerCase(), 'utf8');
    if (actual.length !== expected.length || !timingSafeEqual(actual, expected)) {
      throw new AppError('securityTokenInvalid');
    }
    return { scheme: 'md5', sha256: createHash('sha256').update(actual).digest('hex') };
  }

  /**
   * A SecurityToken-V2 header: well formed (1045), within the window (1046), the right signature
   * (1045), and never seen before (1047). Seen signatures are kept in the database until their
   * window has passed.
   */
  async verifyV2(
    unit: SigningUnit,
    request: SignedRequest,
    headerValue: string,
  ): Promise<TokenAuthorisation> {
    const parsed = parseV2Header(headerValue);
    if (!parsed) throw new AppError('securityTokenV2Invalid');
    const nowMs = this.clock.nowMs();
    if (Math.abs(nowMs - parsed.timestampSeconds * 1000) > WINDOW_SECONDS * 1000) {
      throw new AppError('securityTokenV2Expired');
    }
    const expected = Buffer.from(
      signatureV2(unit.checksumSecret, { ...request, timestampSeconds: parsed.timestampSeconds }),
      'hex',
    );
    const given = Buffer.from(parsed.signature, 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
      throw new AppError('securityTokenV2Invalid');
    }
    const expiresAt = new Date((parsed.timestampSeconds + WINDOW_SECONDS) * 1000);
    if (!(await keepSignature(this.db, unit.unitId, parsed.signature, expiresAt, new Date(nowMs)))) {
      throw new AppError('securityTokenV2Replayed');
    }
    return { scheme: 'v2', sha256: createHash('sha256').update(given).digest('hex') };
  }
}
