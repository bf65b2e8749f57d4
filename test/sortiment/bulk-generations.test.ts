import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadArticleGroups } from '../../src/sortiment/article-groups.store.js';
import {
  type BulkOptions,
  type BulkSource,
  arraySource,
  bulkUpload,
} from '../../src/sortiment/bulk-upload.js';
import type { DB } from '../../src/store/schema.js';
import { jsonSource } from '../../src/wire/bulk-body.js';
import { SegmentedBytes } from '../../src/wire/segmented-bytes.js';
import {
  type TestApp,
  type Terminal,
  countingRows,
  databases,
  merchantIdOf,
  setupTerminal,
  sortimentIdOf,
  startApp,
} from '../support/harness.js';

/**
 * A bulk upload writes the new sortiment as a generation in many short transactions and switches
 * to it in one: whoever reads in between sees the entire old sortiment.
 */

function article(plu: string, group: string, name: string): Record<string, unknown> {
  return {
    PLU: plu,
    GroupId: group,
    Name: [{ lang: 'de', val: `${name} ${plu}` }],
    Prices: [{ Value: 2.5, CurrencyIso: 'EUR' }],
  };
}

const range = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => String(from + i).padStart(3, '0'));

/**
 * Old sortiment: PLUs 001-050 in group OLD. New: 026-080 in group NEW (026-050 renamed). Made
 * anew for every upload: the upload lets go of each item it has read.
 */
const oldBody = () => ({
  Groups: [{ Id: 'OLD' }],
  Articles: range(1, 50).map((p) => article(p, 'OLD', 'alt')),
});
const newBody = () => ({
  Groups: [{ Id: 'NEW' }],
  Articles: range(26, 80).map((p) => article(p, 'NEW', 'neu')),
});

interface View {
  total: number;
  plus: string[];
  names: string[];
  etag: string;
  /** 001 is only in the old sortiment, 060 only in the new one. */
  read001: number;
  read060: number;
  groups: Record<string, string[]>;
}

describe.each(databases)('a bulk upload in generations on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let merchantId: number;

  const newSortiment = async (name: string): Promise<number> =>
    Number(await sortimentIdOf(term, `${name}-${kind}`));
  const view = async (sid: number): Promise<View> => {
    const list = await term.pos('GET', `/sortiments/${sid}/articles`, { query: { pageSize: '1000' } });
    const body = list.json() as { Total: number; Articles: { PLU: string; Name: { val: string }[] }[] };
    const groups = await loadArticleGroups(t.database.db, merchantId, sid, ['001', '030', '060']);
    return {
      total: body.Total,
      plus: body.Articles.map((a) => a.PLU),
      names: body.Articles.map((a) => a.Name[0]?.val ?? ''),
      etag: String(list.headers.etag),
      read001: (await term.pos('GET', `/sortiments/${sid}/article/001`)).statusCode,
      read060: (await term.pos('GET', `/sortiments/${sid}/article/060`)).statusCode,
      groups: Object.fromEntries(groups),
    };
  };
  const uploadFrom = (sid: number, source: BulkSource, options: Partial<BulkOptions>, db: Kysely<DB>) =>
    bulkUpload(db, merchantId, sid, source, {
      changedArticlesOnly: false,
      currency: 'EUR',
      normaliseArticle: (item) => item,
      normaliseGroup: (item) => item,
      batchSize: 10,
      ...options,
    });
  const upload = (sid: number, body: unknown, options: Partial<BulkOptions> = {}) =>
    uploadFrom(sid, arraySource(body as { Articles: unknown[] }), options, t.database.db);
  /** As JSON bytes, as the route reads them: items sent again byte for byte are found by raw hash. */
  const uploadJson = (
    sid: number,
    body: unknown,
    options: Partial<BulkOptions> = {},
    db: Kysely<DB> = t.database.db,
  ) => uploadFrom(sid, jsonSource(SegmentedBytes.of(Buffer.from(JSON.stringify(body)))), options, db);
  const raw = async (sid: number) =>
    (
      await sql<{ rows: number; open: number; owner: string | null; gen: number }>`
        SELECT (SELECT count(*)::integer FROM sortiment_articles WHERE sortiment_id = s.id) AS rows,
          (SELECT count(*)::integer FROM sortiment_articles WHERE sortiment_id = s.id AND to_gen IS NULL) AS open,
          s.pending_owner AS owner, s.current_gen AS gen
        FROM sortiments s WHERE s.id = ${sid}`.execute(t.database.db)
    ).rows[0];

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    merchantId = await merchantIdOf(t, term);
  });
  afterAll(() => t?.close());

  it('between two chunks, article read, menu list, ETag and basket group lookup see the entire old sortiment; after it the entire new one', async () => {
    const sid = await newSortiment('between');
    expect((await upload(sid, oldBody())).Created).toBe(50);
    const before = await view(sid);
    expect(before).toMatchObject({ total: 50, read001: 200, read060: 404 });
    expect(before.groups).toEqual({ '001': ['OLD'], '030': ['OLD'] });

    const seen: View[] = [];
    const counts = await upload(sid, newBody(), {
      onPhase: async (phase) => {
        if (phase === 'progress') seen.push(await view(sid));
      },
    });
    expect(counts).toEqual({ Created: 30, Updated: 25, Deleted: 25, Unchanged: 0 });
    // 55 rows in chunks of 10: six chunks, each followed by a look at the sortiment.
    expect(seen.length).toBe(6);
    for (const v of seen) expect(v).toEqual(before);

    const after = await view(sid);
    expect(after.plus).toEqual(range(26, 80));
    expect(after.names.every((n) => n.startsWith('neu '))).toBe(true);
    expect(after).toMatchObject({ total: 55, read001: 404, read060: 200 });
    expect(after.etag).not.toBe(before.etag);
    expect(after.groups).toEqual({ '030': ['NEW'], '060': ['NEW'] });
    // The replaced and deleted rows are gone once the upload has answered.
    expect(await raw(sid)).toMatchObject({ rows: 55, open: 55, owner: null });
  });

  it('a single-article write during a bulk upload waits for its turn and applies after the upload', async () => {
    const sid = await newSortiment('single');
    await upload(sid, oldBody());
    let write: Promise<{ statusCode: number }> | undefined;
    let settled = false;
    // Whether the write had been answered when the upload committed its generation. After that
    // the upload only tidies (closed rows), and the write, whose turn has come, may finish first.
    let settledDuringUpload: boolean | undefined;
    await upload(sid, newBody(), {
      onPhase: async (phase, detail) => {
        if (phase === 'committed') settledDuringUpload = settled;
        if (phase !== 'progress') return;
        if (detail.written === 10) {
          write = term.pos('POST', `/sortiments/${sid}/article/999`, {
            body: article('999', 'NEW', 'einzeln'),
          });
          void write.then(() => {
            settled = true;
          });
        }
        await new Promise((resolve) => setTimeout(resolve, 30));
      },
    });
    expect(settledDuringUpload).toBe(false);
    expect((await write)?.statusCode).toBe(200);
    const after = await view(sid);
    expect(after.total).toBe(56);
    expect(after.plus.at(-1)).toBe('999');
    expect(await raw(sid)).toMatchObject({ owner: null });
  });

  it('an upload that fails midway leaves the old sortiment and nothing of its own', async () => {
    const sid = await newSortiment('fails');
    await upload(sid, oldBody());
    const before = await view(sid);
    const beforeRaw = await raw(sid);
    await expect(
      upload(sid, newBody(), {
        onPhase: (phase, detail) => {
          if (phase === 'progress' && detail.written === 30) throw new Error('the connection broke');
        },
      }),
    ).rejects.toThrow('the connection broke');
    expect(await view(sid)).toEqual(before);
    expect(await raw(sid)).toEqual({ ...beforeRaw, owner: null });
  });

  it('an invalid article after batches were written refuses the upload and discards the written rows (all or nothing)', async () => {
    const sid = await newSortiment('late-invalid');
    await upload(sid, oldBody());
    const before = await view(sid);
    const beforeRaw = await raw(sid);
    const body = newBody();
    // 54 valid articles (five batches of 10 written as they are read), then one without a name.
    body.Articles.push({ PLU: '999', GroupId: 'NEW' });
    let progress = 0;
    await expect(
      upload(sid, body, {
        onPhase: (phase) => {
          if (phase === 'progress') progress += 1;
        },
      }),
    ).rejects.toThrow('1 invalid item');
    expect(progress).toBe(5);
    expect(await view(sid)).toEqual(before);
    expect(await raw(sid)).toEqual({ ...beforeRaw, owner: null });
  });

  it('an invalid upload takes nothing: no writer is left on the sortiment', async () => {
    const sid = await newSortiment('invalid');
    await upload(sid, oldBody());
    await expect(upload(sid, { Articles: [article('1', 'NOPE', 'x')] })).rejects.toThrow('invalid item');
    expect(await raw(sid)).toMatchObject({ rows: 50, owner: null });
  });

  it('a stale pending marker does not block later uploads: its unfinished generation is removed first', async () => {
    const sid = await newSortiment('stale');
    await upload(sid, oldBody());
    const before = await view(sid);
    const { gen } = (await raw(sid)) ?? { gen: 0 };
    // What a server killed midway leaves: a turn whose lease ran out, a row of the next generation
    // and a live row closed at it.
    await sql`
      UPDATE sortiments SET pending_owner = 'died', pending_until = now() - interval '1 second'
      WHERE id = ${sid}`.execute(t.database.db);
    await sql`
      INSERT INTO sortiment_articles (merchant_id, sortiment_id, plu, group_id, body, content_hash, from_gen)
      SELECT merchant_id, sortiment_id, '900', group_id, body, 'x', ${gen + 1}::bigint
      FROM sortiment_articles WHERE sortiment_id = ${sid} AND plu = '001'`.execute(t.database.db);
    await sql`
      UPDATE sortiment_articles SET to_gen = ${gen + 1}::bigint
      WHERE sortiment_id = ${sid} AND plu = '002'`.execute(t.database.db);
    expect(await view(sid)).toEqual(before);

    const counts = await upload(
      sid,
      { Articles: [article('100', 'OLD', 'neu')] },
      { changedArticlesOnly: true },
    );
    expect(counts).toEqual({ Created: 1, Updated: 0, Deleted: 0, Unchanged: 0 });
    const after = await view(sid);
    expect(after.total).toBe(51);
    expect(after.plus).toContain('002');
    expect(after.plus).not.toContain('900');
    expect(await raw(sid)).toMatchObject({ rows: 51, open: 51, owner: null });
  });

  it('a writer waits while a live writer holds the sortiment, and takes over once its lease runs out', async () => {
    const sid = await newSortiment('lease');
    await upload(sid, oldBody());
    await sql`
      UPDATE sortiments SET pending_owner = 'busy elsewhere', pending_until = now() + interval '600 milliseconds'
      WHERE id = ${sid}`.execute(t.database.db);
    const started = Date.now();
    const res = await term.pos('DELETE', `/sortiments/${sid}/article/001`);
    expect(res.statusCode).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(await raw(sid)).toMatchObject({ rows: 49, owner: null });
  });

  it('a small upload into a large sortiment reads the stored rows of its own items, not every article of the sortiment', async () => {
    const sid = await newSortiment('raw-small');
    const stored = range(1, 400).map((p) => article(p, 'OLD', 'alt'));
    expect(await uploadJson(sid, { Groups: [{ Id: 'OLD' }], Articles: stored })).toMatchObject({
      Created: 400,
    });
    const body = {
      Articles: [...stored.slice(0, 2), article('003', 'OLD', 'neu'), article('999', 'OLD', 'neu')],
    };

    const small = countingRows(t.database.db);
    expect(await uploadJson(sid, body, { changedArticlesOnly: true }, small.db)).toEqual({
      Created: 1,
      Updated: 1,
      Deleted: 0,
      Unchanged: 2,
    });
    expect(small.rows()).toBeLessThan(40);

    // The same upload made to read every stored raw hash reads all 401 open rows.
    const all = countingRows(t.database.db);
    expect(await uploadJson(sid, body, { changedArticlesOnly: true, readAllRawFrom: 0 }, all.db)).toEqual({
      Created: 0,
      Updated: 0,
      Deleted: 0,
      Unchanged: 4,
    });
    expect(all.rows()).toBeGreaterThanOrEqual(401);
  });

  it('found by raw hashes looked up chunk by chunk or read all at once, the answers and stored rows are the same', async () => {
    const perChunk = await newSortiment('raw-per-chunk');
    const readAll = await newSortiment('raw-read-all');
    const groups = [{ Id: 'OLD' }, { Id: 'NEW' }];
    const first = range(1, 1_200).map((p) => article(p, 'OLD', 'alt'));
    // 1,100 of them, 50 renamed, 20 moved to the other group, and 5 new: more than one chunk of
    // lookups, the second asked while batches are written.
    const second = [
      ...first.slice(0, 1_100).map((a, i) => {
        if (i % 22 === 0) return { ...a, Name: [{ lang: 'de', val: `neu ${i}` }] };
        return i % 55 === 1 ? { ...a, GroupId: 'NEW' } : a;
      }),
      ...range(2_001, 2_005).map((p) => article(p, 'NEW', 'neu')),
    ];
    const steps: [unknown, Partial<BulkOptions>][] = [
      [{ Groups: groups, Articles: first }, {}],
      [{ Groups: groups, Articles: second }, {}],
      [{ Groups: groups, Articles: second }, {}],
      // A stored article sent twice byte for byte: listed twice.
      [{ Articles: [first[4], first[6], first[4]] }, { changedArticlesOnly: true }],
      // Stored articles whose group the upload removes.
      [{ Groups: [{ Id: 'NEW' }], Articles: second.slice(0, 10) }, {}],
      [
        { Articles: [first[3], article('004', 'OLD', 'neu'), article('3000', 'NEW', 'neu')] },
        { changedArticlesOnly: true },
      ],
    ];
    const outcome = (sid: number, body: unknown, options: Partial<BulkOptions>) =>
      uploadJson(sid, body, options).catch((err: { extra?: unknown }) => ({ refused: err.extra }));
    const openRows = async (sid: number) =>
      (
        await sql<Record<string, unknown>>`
          SELECT plu, group_id, body::text AS body, content_hash, raw_hash FROM sortiment_articles
          WHERE sortiment_id = ${sid} AND to_gen IS NULL ORDER BY plu`.execute(t.database.db)
      ).rows;
    const answers: unknown[] = [];
    for (const [body, options] of steps) {
      const a = await outcome(perChunk, body, { ...options, readAllRawFrom: Number.POSITIVE_INFINITY });
      const b = await outcome(readAll, body, { ...options, readAllRawFrom: 0 });
      expect(a).toEqual(b);
      expect(await openRows(perChunk)).toEqual(await openRows(readAll));
      answers.push(a);
    }
    expect(answers.slice(1, 3)).toEqual([
      { Created: 5, Updated: 70, Deleted: 100, Unchanged: 1_030 },
      { Created: 0, Updated: 0, Deleted: 0, Unchanged: 1_105 },
    ]);
    expect(answers.slice(3, 5).map((a) => 'refused' in (a as object))).toEqual([true, true]);
  });

  it('a whole sortiment deletes the stored articles it does not list, those stored without a raw hash too, whichever way raw hashes are found', async () => {
    const perChunk = await newSortiment('gone-per-chunk');
    const readAll = await newSortiment('gone-read-all');
    const first = range(1, 30).map((p) => article(p, 'OLD', 'alt'));
    const body = { Groups: [{ Id: 'OLD' }], Articles: first.slice(10) };
    const answers: unknown[] = [];
    for (const [sid, readAllRawFrom] of [
      [perChunk, Number.POSITIVE_INFINITY],
      [readAll, 0],
    ] as const) {
      await uploadJson(sid, { Groups: [{ Id: 'OLD' }], Articles: first });
      // Rows written otherwise than by a bulk upload (single writes, rows from before) have no raw hash.
      await sql`UPDATE sortiment_articles SET raw_hash = NULL
        WHERE sortiment_id = ${sid} AND plu IN ('001', '002', '003', '011', '012')`.execute(t.database.db);
      answers.push(await uploadJson(sid, body, { readAllRawFrom }));
    }
    expect(answers).toEqual([
      { Created: 0, Updated: 0, Deleted: 10, Unchanged: 20 },
      { Created: 0, Updated: 0, Deleted: 10, Unchanged: 20 },
    ]);
    const open = async (sid: number) =>
      (
        await sql<{ plu: string }>`SELECT plu FROM sortiment_articles
          WHERE sortiment_id = ${sid} AND to_gen IS NULL ORDER BY plu`.execute(t.database.db)
      ).rows.map((r) => r.plu);
    expect(await open(perChunk)).toEqual(range(11, 30));
    expect(await open(readAll)).toEqual(range(11, 30));
  });
});
