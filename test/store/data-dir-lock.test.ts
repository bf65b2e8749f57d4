import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DataDirLockedError,
  FOREIGN_STALE_MS,
  LOCK_FILE,
  type LockHolder,
  lockDataDir,
} from '../../src/store/data-dir-lock.js';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-lock-'));
  dirs.push(dir);
  return dir;
}

function startTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

/** The identity this machine would write into a lock, with the given process fields. */
function holderLike(fields: Partial<LockHolder>): LockHolder {
  const mine = JSON.parse(
    (() => {
      const probe = freshDir();
      const lock = lockDataDir(probe, () => {});
      const text = readFileSync(lock.path, 'utf8');
      lock.release();
      return text;
    })(),
  ) as LockHolder;
  return { ...mine, since: '2026-01-01T00:00:00.000Z', nonce: 'other', ...fields };
}

function writeLock(dir: string, holder: LockHolder, ageMs = 0): void {
  const path = join(dir, LOCK_FILE);
  writeFileSync(path, JSON.stringify(holder));
  const at = new Date(Date.now() - ageMs);
  utimesSync(path, at, at);
}

function sleeper(): ChildProcess {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
  await new Promise((r) => child.once('exit', r));
  return child.pid ?? 0;
}

describe('one process per embedded database directory (the lock file)', () => {
  it('a second lock on the same directory is refused, naming the directory and the holder; released, it can be taken again', () => {
    const dir = freshDir();
    const first = lockDataDir(dir, () => {});
    let refused: unknown;
    try {
      lockDataDir(dir, () => {});
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(DataDirLockedError);
    expect((refused as Error).message).toContain(dir);
    expect((refused as Error).message).toContain('by this very process');
    first.release();
    expect(existsSync(first.path)).toBe(false);
    lockDataDir(dir, () => {}).release();
  });

  it('a lock held by another running process on this machine is refused with its pid, host and start', () => {
    const dir = freshDir();
    const other = sleeper();
    const pid = other.pid ?? 0;
    writeLock(dir, holderLike({ pid, processStart: startTicks(pid) }));
    expect(() => lockDataDir(dir, () => {})).toThrow(
      new RegExp(`in use by process ${pid} on host ${hostname()} since 2026-01-01T00:00:00.000Z`),
    );
  });

  it('the lock of a killed process (pid gone) is taken over at once', async () => {
    const dir = freshDir();
    writeLock(dir, holderLike({ pid: await deadPid() }));
    const lock = lockDataDir(dir, () => {});
    expect(JSON.parse(readFileSync(lock.path, 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
  });

  it('the lock of a killed process its parent has not reaped yet (a zombie) is taken over at once', async () => {
    const dir = freshDir();
    // It dies after the shell has become `sleep`, which never waits for children.
    const parent = spawn('sh', ['-c', '(sleep 0.3; exit 0) & echo $!; exec sleep 30'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    children.push(parent);
    const zombie = await new Promise<number>((resolvePid) =>
      parent.stdout?.once('data', (c: Buffer) => resolvePid(Number(c.toString('utf8').trim()))),
    );
    for (let i = 0; i < 50 && !readFileSync(`/proc/${zombie}/stat`, 'utf8').includes(') Z '); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(readFileSync(`/proc/${zombie}/stat`, 'utf8')).toContain(') Z ');
    writeLock(dir, holderLike({ pid: zombie, processStart: startTicks(zombie) }));
    lockDataDir(dir, () => {}).release();
  });

  it('a pid reused by an unrelated process does not keep a dead holder alive (start time differs)', () => {
    const dir = freshDir();
    const other = sleeper();
    const pid = other.pid ?? 0;
    writeLock(dir, holderLike({ pid, processStart: startTicks(pid) + 12345 }));
    lockDataDir(dir, () => {}).release();
  });

  it('a holder on another system counts while it refreshes the lock, and is gone once the lock is older than the limit', () => {
    const dir = freshDir();
    const foreign = holderLike({ pid: 1, host: 'till-server-2', bootId: 'another-boot' });
    writeLock(dir, foreign, 1_000);
    expect(() => lockDataDir(dir, () => {})).toThrow(/by process 1 on host till-server-2/);
    writeLock(dir, foreign, FOREIGN_STALE_MS + 1_000);
    lockDataDir(dir, () => {}).release();
  });

  it('a holder whose lock file is removed by hand is told so (it must stop writing)', async () => {
    const dir = freshDir();
    const { vi } = await import('vitest');
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      const reasons: string[] = [];
      const lock = lockDataDir(dir, (reason) => reasons.push(reason));
      rmSync(lock.path);
      vi.advanceTimersByTime(11_000);
      expect(reasons).toEqual([`the lock file ${lock.path} was removed or replaced`]);
    } finally {
      vi.useRealTimers();
    }
  });
});
