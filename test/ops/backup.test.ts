import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScheduledBackups, backupFileName } from '../../src/store/backups.js';
import { verifyLedger } from '../../src/ledger/ledger-verify.store.js';
import { openDatabase } from '../../src/store/db.js';
import { type CheckoutClient, setupCheckout } from '../checkout/checkout-support.js';
import { type TestApp, databases, startApp } from '../support/harness.js';

/**
 * docs/decisions.md, "Backups of the embedded database": the operator takes a backup of the
 * service while it books, unpacks it into a new DATA_DIR as README says, and the service started on
 * it holds every change committed before the backup, each booking whole, the ledger sound.
 */
describe('a backup of the embedded database', () => {
  let t: TestApp;
  let c: CheckoutClient;
  const dirs: string[] = [];
  beforeAll(async () => {
    t = await startApp('pglite');
    c = await setupCheckout(t);
  });
  afterAll(async () => {
    await t?.close();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const topUp = (card: string) =>
    c.call('POST', `/api/v1/profiles/${card}/topUps`, { amount: 100, currency: 'EUR' });
  const transfers = async () =>
    (await t.database.db.selectFrom('ledger_transfers').select('id').orderBy('id').execute()).map(
      (r) => r.id,
    );

  it('a backup taken while top-ups are booked, unpacked into a new DATA_DIR, starts with every top-up booked before it, each whole, the ledger sound', async () => {
    const profiles = await Promise.all([c.profile(), c.profile(), c.profile()]);
    for (const p of profiles) expect((await topUp(p.card)).statusCode).toBe(201);
    const before = await transfers();

    // Top-ups go on while the backup is taken: it starts after the twentieth.
    let running = true;
    let booked = 0;
    let twenty: () => void = () => undefined;
    const twentyBooked = new Promise<void>((resolve) => (twenty = resolve));
    const booking = (async () => {
      while (running && booked < 400) {
        const p = profiles[booked % profiles.length];
        if (p) expect((await topUp(p.card)).statusCode).toBe(201);
        booked += 1;
        if (booked === 20) twenty();
      }
    })();
    await twentyBooked;
    const res = await t.admin('GET', '/backup');
    running = false;
    await booking;
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.headers['content-type']).toBe('application/gzip');
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="${backupFileName(t.clock.nowMs())}"`,
    );
    const after = await transfers();

    // Restored as README says: unpacked into DATA_DIR/pglite of a service not running.
    const dir = mkdtempSync(join(tmpdir(), 'punchcard-restore-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'pglite'));
    const archive = join(dir, 'backup.tar.gz');
    writeFileSync(archive, res.rawPayload);
    expect(gunzipSync(res.rawPayload).length).toBeGreaterThan(1_000_000);
    execFileSync('tar', ['-xzf', archive, '-C', join(dir, 'pglite')]);
    const restored = await openDatabase({ databaseUrl: null, dataDir: dir });
    try {
      const ids = (await restored.db.selectFrom('ledger_transfers').select('id').orderBy('id').execute()).map(
        (r) => r.id,
      );
      // Every top-up committed before the backup, none that was not committed by its end.
      expect(ids.slice(0, before.length)).toEqual(before);
      expect(after.slice(0, ids.length)).toEqual(ids);
      const report = await verifyLedger(restored.db);
      expect(report.violations).toEqual([]);
      // Each top-up whole: as many top-up transactions of the profiles' balances as top-up
      // transfers of the ledger; and the twenty booked before the backup began are in it.
      const count = async (table: 'balance_transactions' | 'ledger_transfers') =>
        Number(
          (
            await restored.db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .where('kind', '=', 'top_up')
              .executeTakeFirstOrThrow()
          ).n,
        );
      expect(await count('balance_transactions')).toBe(await count('ledger_transfers'));
      expect(ids.length).toBeGreaterThanOrEqual(before.length + 20);
    } finally {
      await restored.close();
    }
  }, 120_000);

  it('without the operator token no backup is given', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/admin/v1/backup' });
    expect(res.statusCode).toBe(401);
  });
});

describe.runIf(databases.includes('postgres'))('a backup of the database on PostgreSQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('postgres');
  });
  afterAll(() => t?.close());

  it('on PostgreSQL the backup is refused, naming its own tools', async () => {
    const res = await t.admin('GET', '/backup');
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ error: { code: 'backup_on_postgres' } });
    expect(res.json().error.message).toContain('pg_dump');
  });
});

describe("the server's own backups into BACKUP_DIR", () => {
  let t: TestApp;
  let dir: string;
  const logged: { level: 'info' | 'error'; msg: string }[] = [];
  const log = {
    info: (_: object, msg: string) => logged.push({ level: 'info', msg }),
    error: (_: object, msg: string) => logged.push({ level: 'error', msg }),
  };
  beforeAll(async () => {
    t = await startApp('pglite');
    dir = mkdtempSync(join(tmpdir(), 'punchcard-backups-'));
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('one when the newest is an interval old, written whole under its time, the oldest removed beyond BACKUP_KEEP, other files left', async () => {
    const backups = new ScheduledBackups(t.database, t.clock, {
      dir: join(dir, 'new'),
      everyMinutes: 60,
      keep: 3,
    });
    const minute = 60_000;
    const first = await backups.tick(log);
    expect(first).toBe(join(dir, 'new', backupFileName(t.clock.nowMs())));
    writeFileSync(join(dir, 'new', 'notes.txt'), "the operator's own file");
    t.clock.advance(59 * minute);
    expect(await backups.tick(log)).toBeNull();
    const taken = [first];
    for (let i = 0; i < 4; i++) {
      t.clock.advance(61 * minute);
      taken.push(await backups.tick(log));
    }
    expect(taken.every((p) => p !== null)).toBe(true);
    const names = readdirSync(join(dir, 'new')).sort();
    expect(names).toEqual([...taken.slice(-3).map((p) => (p ?? '').split('/').at(-1)), 'notes.txt'].sort());
    // No partial file left; the newest restores.
    const newest = taken.at(-1) ?? '';
    const restore = join(dir, 'restore');
    mkdirSync(join(restore, 'pglite'), { recursive: true });
    execFileSync('tar', ['-xzf', newest, '-C', join(restore, 'pglite')]);
    const restored = await openDatabase({ databaseUrl: null, dataDir: restore });
    try {
      expect((await verifyLedger(restored.db)).violations).toEqual([]);
    } finally {
      await restored.close();
    }
    expect(logged.filter((l) => l.level === 'error')).toEqual([]);
    expect(backups.status().lastMs).toBe(t.clock.nowMs());
  });

  it('/metrics tells when the newest backup in BACKUP_DIR was taken, from the directory before the first of the process', async () => {
    const own = join(dir, 'metrics');
    mkdirSync(own);
    const taken = Date.UTC(2026, 11, 1, 3, 0, 0);
    writeFileSync(join(own, backupFileName(taken)), '');
    const app = await startApp('pglite', {}, { BACKUP_DIR: own });
    try {
      const metrics = async () => (await app.app.inject({ method: 'GET', url: '/metrics' })).body;
      await expect.poll(metrics).toContain(`punchcard_backup_last_success_timestamp_seconds ${taken / 1000}`);
    } finally {
      await app.close();
    }
    const without = await t.app.inject({ method: 'GET', url: '/metrics' });
    expect(without.body).not.toContain('punchcard_backup_last_success_timestamp_seconds');
  });

  it('a backup that cannot be written is logged as an error and tried again a quarter of an hour later, not at every look', async () => {
    const blocked = join(dir, 'blocked');
    writeFileSync(blocked, 'a file where the directory should be');
    const backups = new ScheduledBackups(t.database, t.clock, { dir: blocked, everyMinutes: 60, keep: 3 });
    logged.length = 0;
    expect(await backups.tick(log)).toBeNull();
    expect(logged).toEqual([{ level: 'error', msg: 'backup of the embedded database failed' }]);
    t.clock.advance(14 * 60_000);
    expect(await backups.tick(log)).toBeNull();
    expect(logged).toHaveLength(1);
    t.clock.advance(2 * 60_000);
    rmSync(blocked);
    const path = await backups.tick(log);
    expect(path).not.toBeNull();
    expect(existsSync(path ?? '')).toBe(true);
    expect(readFileSync(path ?? '').subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });
});
