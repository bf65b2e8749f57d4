/**
 * Whether an error means that the database cannot be reached or cannot take writes just now: the
 * connection refused or cut, the server shutting down or starting, a former leader that became a
 * replica (a failover), or a pooler with no server for it. Such a request changed nothing that was
 * acknowledged, and the client may repeat it (with the same transactionId or Idempotency-Key): the
 * HTTP edge answers 503 with Retry-After instead of 500.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  return inChain(err, (code, message) => {
    if (NETWORK_CODES.has(code) || SQLSTATES.has(code) || code.startsWith('08')) return true;
    return DRIVER_MESSAGES.some((m) => message.includes(m));
  });
}

/**
 * Whether an error means that the database, or the network to it, is silent: no connection could be
 * opened within its limit (a writer's own connect past it, sqlclient_unable_to_establish_
 * sqlconnection, 08001, src/store/pipelined-connection.ts; the pool's wait for a connection), or a
 * statement sent was not answered within its limit and its connection was given up ("Query read
 * timeout", src/store/connection-limits.ts). Whatever was to be written is not the cause, and
 * writing it again at once, item by item, would only wait as long again (docs/decisions.md, "A
 * database that stops answering"). A connection refused at once (a refused socket, too many
 * connections, a server starting) or cut by the server is not silent: written again, an item may
 * find another connection at once.
 */
export function isDatabaseSilent(err: unknown): boolean {
  return inChain(
    err,
    (code, message) =>
      code === '08001' ||
      message.includes('timeout exceeded when trying to connect') ||
      message.startsWith(READ_TIMEOUT),
  );
}

/**
 * The driver's words for a statement not answered within its `query_timeout` (src/store/
 * connection-limits.ts): its connection is given up.
 */
export const READ_TIMEOUT = 'Query read timeout';

/**
 * Whether an error means that the database has no room for the work just now: its disk is full
 * (disk_full, 53100; the embedded database's directory as much as a server's) or it ran out of
 * memory (out_of_memory, 53200). The statement was undone, nothing was acknowledged, and the client
 * may repeat the request later; unlike a failover, it lasts until the operator makes room, so it
 * is the operator's to see (docs/decisions.md, "A database with no room to write").
 */
export function isDatabaseOutOfRoom(err: unknown): boolean {
  return inChain(err, (code) => OUT_OF_ROOM.has(code));
}

/**
 * Whether an error means that a row the work needs stayed locked by another session for longer
 * than the work may wait (lock_not_available, 55P03: a writer's batch, an item alone or waiting,
 * docs/decisions.md, "A row locked for long"). The statement was undone and nothing was
 * acknowledged; the client may repeat the request.
 */
export function isRowLockedTooLong(err: unknown): boolean {
  return inChain(err, (code) => code === '55P03');
}

/**
 * Whether a statement ran past the connection's limit (query_canceled, 57014: DATABASE_STATEMENT_
 * TIMEOUT_MS, docs/decisions.md "A statement's limit"), waiting for a row another session holds,
 * say. The statement was undone, and its transaction with it; the client may repeat the request.
 */
export function isStatementTimedOut(err: unknown): boolean {
  return inChain(err, (code) => code === '57014');
}

/**
 * Whether the database undid the transaction because it conflicted with another one running at the
 * same moment: a deadlock (deadlock_detected, 40P01) or a serialization failure (40001). Nothing was
 * written, and the same request repeated runs after the other one (docs/decisions.md, "A
 * transaction undone for a conflict").
 */
export function isTransactionConflict(err: unknown): boolean {
  return inChain(err, (code) => code === '40P01' || code === '40001');
}

/**
 * Whether an error is the database's, not the request's: unreachable, out of room, a row held
 * elsewhere past the wait, a statement past its limit. Doing the same work again at once, on a
 * fresh lookup say, would only wait as long again; the client repeats the request later.
 */
export function isDatabaseTrouble(err: unknown): boolean {
  return (
    isDatabaseUnavailable(err) ||
    isDatabaseOutOfRoom(err) ||
    isRowLockedTooLong(err) ||
    isStatementTimedOut(err)
  );
}

/** Whether `test` holds for the error or for one of its causes (the driver's code and message). */
function inChain(err: unknown, test: (code: string, message: string) => boolean): boolean {
  if (typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown };
  if (test(typeof e.code === 'string' ? e.code : '', typeof e.message === 'string' ? e.message : '')) {
    return true;
  }
  return e.cause !== undefined && e.cause !== err && inChain(e.cause, test);
}

const OUT_OF_ROOM = new Set(['53100', '53200']);

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
  READ_TIMEOUT,
  'connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection is closed',
  'server conn crashed',
  'no more connections allowed',
  'query_wait_timeout',
  'server_login_retry',
];
