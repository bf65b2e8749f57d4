import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/store/db.js';
import type { PipelinedConnection } from '../../src/store/pipelined-connection.js';
import { WalFlush } from '../../src/store/wal-flush.store.js';
import { databases, openTestDatabase } from '../support/harness.js';

/**
 * The flush after a batch that committed without waiting for the disk (docs/decisions.md, "Orders
 * in one statement": the flush after the batch): flush() resolves once a flushing transaction that
 * started after the call has committed; callers that arrive while one runs share the next one.
 */
describe('flushing the write-ahead log for batches committed without waiting', () => {
  /** A connection whose statements finish when the test says. */
  function controlled() {
    const sent: { resolve(): void; reject(err: Error): void }[] = [];
    const connection = {
      query: () =>
        new Promise<unknown[]>((resolve, reject) => {
          sent.push({ resolve: () => resolve([]), reject });
        }),
    } as unknown as PipelinedConnection;
    return { connection, sent };
  }
  const settled = async <T>(p: Promise<T>) => {
    let done = false;
    void p.then(
      () => (done = true),
      () => (done = true),
    );
    await new Promise((r) => setImmediate(r));
    return done;
  };

  it('a caller when none runs starts one at once, and is answered when it committed', async () => {
    const { connection, sent } = controlled();
    const flush = new WalFlush(connection);
    const first = flush.flush();
    expect(sent).toHaveLength(1);
    expect(await settled(first)).toBe(false);
    sent[0]?.resolve();
    await first;
  });

  it('callers while one runs wait for the next one, started after it, and share it', async () => {
    const { connection, sent } = controlled();
    const flush = new WalFlush(connection);
    const first = flush.flush();
    const second = flush.flush();
    const third = flush.flush();
    expect(sent).toHaveLength(1);
    sent[0]?.resolve();
    await first;
    // The running flush may have started before the later callers' commits: not theirs.
    expect(await settled(second)).toBe(false);
    expect(sent).toHaveLength(2);
    sent[1]?.resolve();
    await Promise.all([second, third]);
    expect(sent).toHaveLength(2);
  });

  it('a flush that fails fails its callers; the next caller starts a new one', async () => {
    const { connection, sent } = controlled();
    const flush = new WalFlush(connection);
    const first = flush.flush();
    const waiting = flush.flush();
    sent[0]?.reject(new Error('connection lost'));
    await expect(first).rejects.toThrow('connection lost');
    // The one behind it still runs its own flush.
    expect(await settled(waiting)).toBe(false);
    sent[1]?.resolve();
    await waiting;
    const later = flush.flush();
    expect(sent).toHaveLength(3);
    sent[2]?.resolve();
    await later;
  });
});

describe.each(databases)('the write-ahead log flushed on %s', (kind) => {
  let fresh: { database: Database; drop(): Promise<void> };
  beforeAll(async () => {
    fresh = await openTestDatabase(kind);
  });
  afterAll(async () => {
    await fresh.drop();
  });

  if (kind === 'pglite') {
    it('the embedded database has no pipelined connection, so nothing commits without waiting', () => {
      expect(fresh.database.pipeline({ asyncCommit: true })).toBeNull();
    });
    return;
  }

  it('a connection that commits without waiting says so; the others wait for the disk', async () => {
    const quick = fresh.database.pipeline({ asyncCommit: true });
    const plain = fresh.database.pipeline();
    if (!quick || !plain) throw new Error('no pipelined connection');
    const setting = async (p: PipelinedConnection) =>
      (await p.query<{ synchronous_commit: string }>('probe_sync', 'SHOW synchronous_commit', []))[0]
        ?.synchronous_commit;
    expect(await setting(quick)).toBe('off');
    expect(await setting(plain)).not.toBe('off');
  });

  it('after a flush the log is on disk past every commit before it', async () => {
    const plain = fresh.database.pipeline();
    if (!plain) throw new Error('no pipelined connection');
    const { rows } = await sql<{ lsn: string }>`SELECT pg_current_wal_insert_lsn()::text AS lsn`.execute(
      fresh.database.db,
    );
    const before = rows[0]?.lsn ?? '';
    await new WalFlush(plain).flush();
    const flushed = await sql<{ past: boolean }>`
      SELECT pg_current_wal_flush_lsn() >= ${before}::pg_lsn AS past`.execute(fresh.database.db);
    expect(flushed.rows[0]?.past).toBe(true);
  });
});
