import { createHash, createHmac } from 'node:crypto';

/**
 * The signatures of the interfaces, computed where the client has the exact bytes it sends
 * (docs/decisions.md, "SecurityTokens and credentials" and "Checkout v1").
 */

/** SecurityToken of the POS interface: lower-case hex MD5 of input + "qPnsS14" + checksumSecret. */
export function securityToken(input: string, checksumSecret: string): string {
  return createHash('md5').update(`${input}qPnsS14${checksumSecret}`, 'utf8').digest('hex');
}

/**
 * The MD5 input of addBalance and withdrawBalance for a merchant that requires transactionIds:
 * the operation, the card id, the amount as sent and the transactionId, each on a line of its own.
 */
export function transactionTokenInput(
  operation: 'addBalance' | 'withdrawBalance',
  id: string,
  amount: string,
  transactionId: string,
): string {
  return `${operation}\n${id}\n${amount}\n${transactionId}`;
}

/**
 * SecurityToken-V2: `t=<unix seconds>,s=<hex HMAC-SHA256>` keyed with the checksumSecret over
 * METHOD "\n" path-with-query "\n" t "\n" and the body bytes (before any Content-Encoding).
 */
export function securityTokenV2(
  checksumSecret: string,
  request: { method: string; pathWithQuery: string; body?: Uint8Array; unixSeconds: number },
): string {
  const t = String(request.unixSeconds);
  const hmac = createHmac('sha256', Buffer.from(checksumSecret, 'utf8'));
  hmac.update(`${request.method.toUpperCase()}\n${request.pathWithQuery}\n${t}\n`, 'utf8');
  if (request.body) hmac.update(request.body);
  return `t=${t},s=${hmac.digest('hex')}`;
}

/**
 * Security-Token of a checkout order: lower-case hex HMAC-SHA256 keyed with the securitySecret over
 * Timestamp "\n" Idempotency-Key "\n" and the body bytes as sent.
 */
export function checkoutSecurityToken(
  securitySecret: string,
  timestamp: string,
  idempotencyKey: string,
  body: Uint8Array,
): string {
  return createHmac('sha256', Buffer.from(securitySecret, 'utf8'))
    .update(`${timestamp}\n${idempotencyKey}\n`, 'utf8')
    .update(body)
    .digest('hex');
}
