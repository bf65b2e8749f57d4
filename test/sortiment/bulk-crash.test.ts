import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { bulkBodyJson } from '../../bench/sortiment-data.js';
import {
  type HttpTerminal,
  type ServerProcess,
  bulkUploadHttp,
  lookupSortimentHttp,
  posHeaders,
  setupHttpTerminal,
  startServer,
} from '../../bench/server-process.js';
import { withDatabase } from '../support/global-setup.js';
import { databases } from '../support/harness.js';

const OLD_COUNT = 20_000;
const NEW_COUNT = 25_000;

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

  it('leaves the sortiment entirely old after SIGKILL and a restart, and the upload then goes through', async () => {
    let env: Record<string, string>;
    if (kind === 'pglite') {
      const dir = mkdtempSync(join(tmpdir(), 'punchcard-crash-'));
      env = { DATA_DIR: dir };
      cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    } else {
      const url = process.env.TEST_DATABASE_URL ?? '';
      const name = `punchcard_crash_${process.pid}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      env = { DATABASE_URL: withDatabase(url, name) };
      cleanups.push(async () => {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      });
    }

    let server: ServerProcess = await startServer(env);
    cleanups.push(() => server.kill());
    const t = await setupHttpTerminal(server.url, `crash-${kind}`);
    const sid = await lookupSortimentHttp(server.url, t, 'crash');
    const first = await bulkUploadHttp(server.url, t, sid, bulkBodyJson(OLD_COUNT), {
      changedArticlesOnly: false,
    });
    expect(first.status).toBe(200);
    const before = await allArticles(server.url, t, sid);
    expect(before.length).toBe(OLD_COUNT);

    // Every article of the new body differs (revision 1) and there are more of them.
    const newBody = bulkBodyJson(NEW_COUNT, { revision: 1 });
    server.lines.length = 0;
    const upload = bulkUploadHttp(server.url, t, sid, newBody, { changedArticlesOnly: false }).catch(
      (err: unknown) => err,
    );
    await server.waitForLine('sortiment bulk upload: writing');
    await new Promise((r) => setTimeout(r, 50));
    await server.kill('SIGKILL');
    await upload;
    expect(server.lines.some((l) => l.includes('sortiment bulk upload: committed'))).toBe(false);

    server = await startServer(env);
    const after = await allArticles(server.url, t, sid);
    expect(after).toEqual(before);

    const retry = await bulkUploadHttp(server.url, t, sid, newBody, { changedArticlesOnly: false });
    expect(retry.status).toBe(200);
    expect(JSON.parse(retry.body)).toEqual({
      Created: NEW_COUNT - OLD_COUNT,
      Updated: OLD_COUNT,
      Deleted: 0,
      Unchanged: 0,
    });
    const done = await allArticles(server.url, t, sid);
    expect(done.length).toBe(NEW_COUNT);
    expect(done.every((a) => a.name.endsWith(' r1'))).toBe(true);
  }, 240_000);
});
