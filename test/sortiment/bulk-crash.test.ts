import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningServer } from '../../bench/lib/server.js';
import { bulkBodyJson } from '../../bench/sortiment-data.js';
import {
  type HttpTerminal,
  bulkUploadHttp,
  lookupSortimentHttp,
  posHeaders,
  setupHttpTerminal,
} from '../../bench/server-process.js';
import { openDatabase } from '../../src/store/db.js';
import { serviceDatabase, startService } from '../support/child-service.js';
import { databases } from '../support/harness.js';

// An upload writes its articles in batches of BULK_BATCH_SIZE (1,000 unless set; src/config.ts).
// The server here writes batches of 100 and the new body has fifteen, so the kill after the first
// one's progress note lands well before the last.
const BATCH_SIZE = 100;
const OLD_COUNT = 1_000;
const NEW_COUNT = 1_500;

interface RawRows {
  /** Every article row of the sortiment, whatever its generation. */
  rows: number;
  /** Rows of a generation readers do not see yet (written by an upload that did not finish). */
  unfinished: number;
  /** The writer named on the sortiment, if any. */
  owner: string | null;
}

/** What the sortiment's rows look like in the database itself (the server of PGlite must be down). */
async function rawRows(env: Record<string, string>, sid: string): Promise<RawRows> {
  const database = await openDatabase({
    databaseUrl: env.DATABASE_URL ?? null,
    dataDir: env.DATA_DIR ?? null,
  });
  try {
    const { rows } = await sql<{ rows: number; unfinished: number; owner: string | null }>`
      SELECT count(a.plu)::integer AS rows,
        (count(a.plu) FILTER (WHERE a.from_gen > s.current_gen))::integer AS unfinished,
        s.pending_owner AS owner
      FROM sortiments s LEFT JOIN sortiment_articles a ON a.sortiment_id = s.id
      WHERE s.id = ${Number(sid)} GROUP BY s.id`.execute(database.db);
    const row = rows[0];
    if (!row) throw new Error(`no sortiment ${sid}`);
    return row;
  } finally {
    await database.close();
  }
}

async function allArticles(
  url: string,
  t: HttpTerminal,
  sid: string,
): Promise<{ PLU: string; name: string }[]> {
  const out: { PLU: string; name: string }[] = [];
  for (let page = 1; ; page++) {
    const res = await fetch(`${url}/api/pos/v3/sortiments/${sid}/articles?page=${page}&pageSize=1000`, {
      headers: posHeaders(t),
    });
    const body = (await res.json()) as { Articles: { PLU: string; Name: { val: string }[] }[] };
    for (const a of body.Articles) out.push({ PLU: a.PLU, name: a.Name[0]?.val ?? '' });
    if (body.Articles.length < 1000) return out;
  }
}

describe.each(databases)('a bulk upload killed midway on %s', (kind) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('leaves the sortiment entirely old after SIGKILL between two chunks, and the next upload cleans up and goes through', async () => {
    const database = await serviceDatabase(kind, 'crash');
    cleanups.push(() => database.drop());
    // debug: the server notes every written chunk, so the kill lands between two of them.
    const env: Record<string, string> = {
      ...database.env,
      LOG_LEVEL: 'debug',
      BULK_BATCH_SIZE: String(BATCH_SIZE),
    };

    let server: RunningServer = await startService(env);
    cleanups.push(() => server.kill());
    const t = await setupHttpTerminal(server.baseUrl, `crash-${kind}`);
    const sid = await lookupSortimentHttp(server.baseUrl, t, 'crash');
    const first = await bulkUploadHttp(server.baseUrl, t, sid, bulkBodyJson(OLD_COUNT), {
      changedArticlesOnly: false,
    });
    expect(first.status).toBe(200);
    const before = await allArticles(server.baseUrl, t, sid);
    expect(before.length).toBe(OLD_COUNT);

    // Every article of the new body differs (revision 1) and there are more of them.
    const newBody = bulkBodyJson(NEW_COUNT, { revision: 1 });
    server.lines.length = 0;
    const upload = bulkUploadHttp(server.baseUrl, t, sid, newBody, { changedArticlesOnly: false }).catch(
      (err: unknown) => err,
    );
    await server.waitForLine('sortiment bulk upload: progress');
    await server.kill('SIGKILL');
    await upload;
    expect(server.lines.some((l) => l.includes('sortiment bulk upload: committed'))).toBe(false);
    // The kill came between chunks: part of the new generation is in the database, unseen.
    const killed = await rawRows(env, sid);
    expect(killed.unfinished).toBeGreaterThan(0);
    expect(killed.unfinished).toBeLessThan(NEW_COUNT);
    expect(killed.owner).not.toBeNull();

    server = await startService(env);
    const after = await allArticles(server.baseUrl, t, sid);
    expect(after).toEqual(before);

    const retry = await bulkUploadHttp(server.baseUrl, t, sid, newBody, { changedArticlesOnly: false });
    expect(retry.status).toBe(200);
    expect(JSON.parse(retry.body)).toEqual({
      Created: NEW_COUNT - OLD_COUNT,
      Updated: OLD_COUNT,
      Deleted: 0,
      Unchanged: 0,
    });
    // The server wrote the batches its setting asks for. Its log reaches the test through a pipe,
    // not with the answer: the commit's line, the upload's last, says every line is in.
    await server.waitForLine('sortiment bulk upload: committed');
    const progress = server.lines.filter((l) => l.includes('sortiment bulk upload: progress'));
    expect(progress.length).toBe(NEW_COUNT / BATCH_SIZE);
    const done = await allArticles(server.baseUrl, t, sid);
    expect(done.length).toBe(NEW_COUNT);
    expect(done.every((a) => a.name.endsWith(' r1'))).toBe(true);
    // Nothing is left of the killed upload nor of the replaced rows, and no writer holds the sortiment.
    await server.kill('SIGTERM');
    expect(await rawRows(env, sid)).toEqual({ rows: NEW_COUNT, unfinished: 0, owner: null });
  }, 240_000);
});
