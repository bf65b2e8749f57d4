/**
 * Whether an error means that the database cannot be reached or cannot take writes just now: the
 * connection refused or cut, the server shutting down or starting, a former leader that became a
 * replica (a failover), or a pooler with no server for it. Such a request changed nothing that was
 * acknowledged, and the client may repeat it (with the same transactionId or Idempotency-Key): the
 * HTTP edge answers 503 with Retry-After instead of 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown };
  const code = typeof e.code === 'string' ? e.code : '';
  if (NETWORK_CODES.has(code) || SQLSTATES.has(code) || code.startsWith('08')) return true;
  const message = typeof e.message === 'string' ? e.message : '';
  if (DRIVER_MESSAGES.some((m) => message.includes(m))) return true;
  return e.cause !== undefined && e.cause !== err && isDatabaseUnavailable(e.cause);
}

/** Socket errors of the driver's connection. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTCONN',
]);

/**
 * SQLSTATEs of a server that is going away or not the leader: admin_shutdown, crash_shutdown,
 * cannot_connect_now, read_only_sql_transaction (a write on a node that is a replica now),
 * too_many_connections; class 08 (connection exception) is matched by its prefix.
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '25006', '53300']);

/** The driver's and the pool's own words for a lost or impossible connection (no code on them). */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection is closed',
  'server conn crashed',
  'no more connections allowed',
  'query_wait_timeout',
  'server_login_retry',
];
