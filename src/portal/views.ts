import type { FastifyInstance } from 'fastify';
import { AppError } from '../shared/errors.js';
import type { Kysely } from 'kysely';
import type { Services } from '../services.js';
import type { DB } from '../store/schema.js';

/**
 * What the portal's views read: the database and the app's services. A view is the one function
 * behind a JSON answer of the portal's API and the page that shows it (src/portal/pages.routes.ts),
 * so a page shows exactly what the API answers without passing through the app a second time.
 */
export interface ViewDeps {
  readonly db: Kysely<DB>;
  /** The primary and, for figures that decide no money, a replica when there is one. */
  readonly database: FastifyInstance['ctx']['database'];
  readonly clock: FastifyInstance['ctx']['clock'];
  readonly services: Services;
}

export function viewDeps(app: FastifyInstance): ViewDeps {
  const { database, clock } = app.ctx;
  return { db: database.db, database, clock, services: app.services };
}

/**
 * A view's answer, or null when it names nothing there is (the API's 404) or, where the page
 * passes 400, when it refuses what the page's address asked (a cursor of another list): the page
 * says so.
 */
export async function found<T>(view: Promise<T>, ...statuses: number[]): Promise<T | null> {
  try {
    return await view;
  } catch (err) {
    if (err instanceof AppError && (err.entry.status === 404 || statuses.includes(err.entry.status)))
      return null;
    throw err;
  }
}

/**
 * Every row of a paged view, page after page (docs/decisions.md, "Paging"), at most `most`: the
 * pages that show a whole list (terminals, campaigns, clients, webhooks, articles) read it so.
 */
export async function everyRow<T>(
  view: (page: { limit: number; cursor?: string }) => Promise<{ data: T[]; nextCursor: string | null }>,
  most: number,
): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await view({ limit: 100, ...(cursor ? { cursor } : {}) });
    rows.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor !== undefined && rows.length < most);
  return rows.slice(0, most);
}
