import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BulkOptions, bulkUpload } from '../../src/sortiment/bulk-upload.js';
import { StoredOpenRows, StoredRowsCache } from '../../src/sortiment/stored-rows.js';
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
import { article, changingSteps, openRowsOf, range } from './bulk-fixtures.js';

/**
 * The open rows a process keeps of the sortiments it uploaded (docs/decisions.md, "Sortiment"): an
 * upload uses them only when they are those of the sortiment's generation and version, which
 * every other writer raises, on this instance of the service or another sharing its database.
 */

describe('the open rows of a sortiment held by PLU and raw hash', () => {
  it('answer the row a raw hash names, in place of the PLU row it replaced, and forget removed rows', () => {
    const rows = new StoredOpenRows();
    rows.set('001', 'r1', 'A');
    rows.set('002', null, 'A');
    rows.set('003', 'r3', null);
    rows.set('001', 'r1b', 'B');
    rows.delete('003');
    expect(rows.get('r1')).toBeUndefined();
    expect(rows.get('r1b')).toEqual({ plu: '001', group_id: 'B' });
    expect(rows.get('r3')).toBeUndefined();
    expect(rows.openPlus()).toEqual(['001', '002']);
    expect(rows.size).toBe(2);
  });

  it('stay the same rows when the slots of removed ones are packed', () => {
    const rows = new StoredOpenRows();
    for (const p of range(1, 3_000)) rows.set(p, `r${p}`, 'A');
    for (const p of range(1, 2_900)) rows.delete(p);
    expect(rows.size).toBe(100);
    expect(rows.get('r2950')).toEqual({ plu: '2950', group_id: 'A' });
    expect(rows.get('r0005')).toBeUndefined();
    expect(rows.openPlus()).toEqual(range(2_901, 3_000));
  });

  it('are given out once, and only for the generation and version they describe; the cache holds at most its rows', () => {
    const cache = new StoredRowsCache(5);
    const three = new StoredOpenRows();
    for (const p of range(1, 3)) three.set(p, p, null);
    cache.put(1, 4, 7, three);
    expect(cache.take(1, 4, 8)).toBeNull();
    // Asked once with other facts, the entry is gone.
    expect(cache.take(1, 4, 7)).toBeNull();
    cache.put(1, 4, 7, three);
    expect(cache.take(1, 4, 7)).toBe(three);
    expect(cache.take(1, 4, 7)).toBeNull();
    cache.put(1, 4, 7, three);
    cache.put(2, 1, 1, three);
    // Six rows in all: the sortiment used longest ago goes.
    expect(cache.rows).toBe(3);
    expect(cache.take(1, 4, 7)).toBeNull();
    expect(cache.take(2, 1, 1)).toBe(three);
    const six = new StoredOpenRows();
    for (const p of range(1, 6)) six.set(p, p, null);
    cache.put(3, 1, 1, six);
    expect(cache.rows).toBe(0);
  });
});

describe.each(databases)('the open rows a process keeps of a sortiment on %s', (kind) => {
  let t: TestApp;
  let term: Terminal;
  let merchantId: number;

  const newSortiment = async (name: string): Promise<number> =>
    Number(await sortimentIdOf(term, `${name}-${kind}`));
  /** As JSON bytes, as the route reads them; `storedRows` is the instance's cache. */
  const upload = (
    sid: number,
    body: unknown,
    options: Partial<BulkOptions> = {},
    db: Kysely<DB> = t.database.db,
  ) =>
    bulkUpload(db, merchantId, sid, jsonSource(SegmentedBytes.of(Buffer.from(JSON.stringify(body)))), {
      changedArticlesOnly: false,
      currency: 'EUR',
      normaliseArticle: (item) => item,
      normaliseGroup: (item) => item,
      batchSize: 100,
      readAllRawFrom: 0,
      ...options,
    }).catch((err: { extra?: unknown }) => ({ refused: err.extra }));
  const openRows = (sid: number) => openRowsOf(t.database.db, sid);

  beforeAll(async () => {
    t = await startApp(kind);
    term = await setupTerminal(t);
    merchantId = await merchantIdOf(t, term);
  });
  afterAll(() => t?.close());

  it('an upload with the kept rows answers and stores as one that reads the stored rows, without reading them', async () => {
    const kept = await newSortiment('kept');
    const fresh = await newSortiment('fresh');
    const cache = new StoredRowsCache(10_000);
    const { first, steps } = changingSteps();
    const groups = [{ Id: 'OLD' }, { Id: 'NEW' }];
    steps.push(
      [{ Groups: groups, Articles: first.slice(100, 200) }, {}],
      [{ Groups: groups, Articles: first.slice(100, 200) }, {}],
    );
    const answers: unknown[] = [];
    for (const [body, options] of steps) {
      const counting = countingRows(t.database.db);
      const a = await upload(kept, body, { ...options, storedRows: cache }, counting.db);
      const b = await upload(fresh, body, options);
      expect(a).toEqual(b);
      expect(await openRows(kept)).toEqual(await openRows(fresh));
      // After an upload that was written, the rows it kept are used: the stored rows (1,100 and
      // more) are not read, only those of the changed articles' PLUs. A refused upload kept none
      // (what it had written was discarded).
      const before = answers.at(-1);
      if (before !== undefined && !('refused' in (before as object)))
        expect(counting.rows()).toBeLessThan(200);
      answers.push(a);
    }
    expect(answers.slice(1, 3)).toEqual([
      { Created: 5, Updated: 70, Deleted: 100, Unchanged: 1_030 },
      { Created: 0, Updated: 0, Deleted: 0, Unchanged: 1_105 },
    ]);
    expect(answers.slice(3, 6).map((a) => 'refused' in (a as object))).toEqual([true, true, true]);
    expect(answers.at(-1)).toEqual({ Created: 0, Updated: 0, Deleted: 0, Unchanged: 100 });
  });

  it("another instance's upload and a single write make the kept rows unused: the next upload answers as one that reads the stored rows", async () => {
    const sid = await newSortiment('two-instances');
    const control = await newSortiment('two-instances-control');
    const here = new StoredRowsCache(10_000);
    const there = new StoredRowsCache(10_000);
    const groups = [{ Id: 'OLD' }];
    const body = { Groups: groups, Articles: range(1, 300).map((p) => article(p, 'OLD', 'alt')) };
    const changed = {
      Groups: groups,
      Articles: range(2, 300).map((p) => article(p, 'OLD', p === '010' ? 'neu' : 'alt')),
    };
    const same = async (options: Partial<BulkOptions>, what: unknown) => {
      const a = await upload(sid, what, options);
      expect(a).toEqual(await upload(control, what, {}));
      expect(await openRows(sid)).toEqual(await openRows(control));
      return a;
    };
    await same({ storedRows: here }, body);
    // The other instance changes 010 and deletes 001; the body again brings both back.
    expect(await same({ storedRows: there }, changed)).toEqual({
      Created: 0,
      Updated: 1,
      Deleted: 1,
      Unchanged: 298,
    });
    expect(await same({ storedRows: here }, body)).toEqual({
      Created: 1,
      Updated: 1,
      Deleted: 0,
      Unchanged: 298,
    });
    // A single write of 020 raises the version: the body again restores it.
    for (const s of [sid, control]) {
      const res = await term.pos('PUT', `/sortiments/${s}/article/020`, {
        query: { groupId: 'OLD' },
        body: article('020', 'OLD', 'einzeln'),
      });
      expect(res.statusCode).toBe(200);
    }
    expect(await same({ storedRows: here }, body)).toEqual({
      Created: 0,
      Updated: 1,
      Deleted: 0,
      Unchanged: 299,
    });
    expect(await same({ storedRows: here }, body)).toEqual({
      Created: 0,
      Updated: 0,
      Deleted: 0,
      Unchanged: 300,
    });
  });
});
