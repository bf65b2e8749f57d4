import type pg from 'pg';
import { READ_TIMEOUT } from '../shared/database-unavailable.js';

/**
 * How long a new database connection may take to open before it counts as failed: the pool's
 * (db.ts) and each writer's own (pipelined-connection.ts) alike.
 */
export const CONNECT_LIMIT_MS = 10_000;

/**
 * How long a statement's answer may take past the statement's own limit (the server's
 * statement_timeout, which answers with an error when it runs out) before the connection counts
 * as lost: the database, or the network to it, stopped answering (docs/decisions.md, "A database
 * that stops answering").
 */
export const ANSWER_MARGIN_MS = 5_000;

/** The limit for a statement's answer given the statement's own limit; 0 (none) for none. */
export function answerLimitMs(statementLimitMs: number): number {
  return statementLimitMs > 0 ? statementLimitMs + ANSWER_MARGIN_MS : 0;
}

/** The driver's own error for a statement not answered within `query_timeout`. */
export function isReadTimeout(err: unknown): boolean {
  return err instanceof Error && err.message === READ_TIMEOUT;
}

/** The event a pool's client emits when it gives its connection up (counted for /metrics, db.ts). */
export const GIVEN_UP = 'punchcard:givenUp';

/**
 * Gives a pool's connection up after a statement sent on it went unanswered in time: its answer
 * may still come, or never, and nothing more can be sent behind it. The driver closes the socket
 * of a client whose statement is unanswered at once, and the pool takes back a client that is
 * ending as one to drop.
 */
export function giveUp(client: pg.Client): void {
  client.emit(GIVEN_UP);
  client.end().catch(() => undefined);
}
