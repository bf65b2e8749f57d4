import { randomBytes } from 'node:crypto';
import {
  linkSync,
  mkdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * One process per embedded database (docs/decisions.md, "One process per DATA_DIR"). The lock is
 * a file in DATA_DIR naming its holder. A holder on this machine, in this process namespace, is
 * alive when its pid runs and started when the lock says (so a reused pid is not mistaken for it):
 * the lock of a killed process is taken over at once. A holder seen from elsewhere (another
 * container or host on a shared volume) cannot be asked, so it refreshes the file's time every
 * HEARTBEAT_MS and counts as gone when the file is older than FOREIGN_STALE_MS.
 */
export const LOCK_FILE = 'punchcard.lock';
export const HEARTBEAT_MS = 10_000;
export const FOREIGN_STALE_MS = 30_000;

export interface LockHolder {
  readonly pid: number;
  readonly host: string;
  /** ISO 8601 instant the lock was taken. */
  readonly since: string;
  /** Kernel boot id ("" where the system has none). */
  readonly bootId: string;
  /** Process id namespace ("" where the system has none). */
  readonly pidNamespace: string;
  /** Start time of the process in clock ticks after boot (null where /proc is missing). */
  readonly processStart: number | null;
  /** Tells this lock apart from any other, also one of the same pid. */
  readonly nonce: string;
}

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockHolder | null,
    detail: string,
  ) {
    super(
      `the embedded database in ${dataDir} is in use ${detail}. ` +
        'One process per DATA_DIR: stop that process first, or use PostgreSQL (DATABASE_URL) for several instances.',
    );
    this.name = 'DataDirLockedError';
  }
}

export interface DataDirLock {
  readonly path: string;
  readonly holder: LockHolder;
  /** Removes the lock file if it is still ours. */
  release(): void;
}

function readOptional(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return '';
  }
}

function pidNamespace(): string {
  try {
    return readlinkSync('/proc/self/ns/pid');
  } catch {
    return '';
  }
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function procStat(pid: number): string[] | null {
  const stat = readOptional(`/proc/${pid}/stat`);
  const end = stat.lastIndexOf(')');
  return end < 0 ? null : stat.slice(end + 2).split(' ');
}

/** Field 22 of /proc/<pid>/stat: the start time in clock ticks after boot. */
function processStartTicks(pid: number): number | null {
  const ticks = Number(procStat(pid)?.[19]);
  return Number.isSafeInteger(ticks) ? ticks : null;
}

function pidRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    // EPERM: the process exists but belongs to another user.
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // A killed process its parent has not reaped yet still answers to its pid, but holds nothing.
  const state = procStat(pid)?.[0];
  return state !== 'Z' && state !== 'X';
}

function parseHolder(text: string): LockHolder | null {
  try {
    const h = JSON.parse(text) as Partial<LockHolder>;
    if (typeof h.pid !== 'number' || typeof h.host !== 'string' || typeof h.since !== 'string') return null;
    return {
      pid: h.pid,
      host: h.host,
      since: h.since,
      bootId: typeof h.bootId === 'string' ? h.bootId : '',
      pidNamespace: typeof h.pidNamespace === 'string' ? h.pidNamespace : '',
      processStart: typeof h.processStart === 'number' ? h.processStart : null,
      nonce: typeof h.nonce === 'string' ? h.nonce : '',
    };
  } catch {
    return null;
  }
}

function describe(holder: LockHolder): string {
  return `by process ${holder.pid} on host ${holder.host} since ${holder.since}`;
}

type Verdict = { alive: true; detail: string } | { alive: false };

function judge(holder: LockHolder | null, mtimeMs: number, self: LockHolder, nowMs: number): Verdict {
  if (!holder) {
    // Unreadable: written by something else, or damaged. Honour it only while it is fresh.
    return nowMs - mtimeMs < FOREIGN_STALE_MS
      ? { alive: true, detail: 'by an unreadable lock file (written less than 30 s ago)' }
      : { alive: false };
  }
  const sameSystem =
    holder.host === self.host && holder.bootId === self.bootId && holder.pidNamespace === self.pidNamespace;
  if (sameSystem) {
    if (!pidRuns(holder.pid)) return { alive: false };
    const start = processStartTicks(holder.pid);
    if (start !== null && holder.processStart !== null && start !== holder.processStart) {
      return { alive: false };
    }
    const who = holder.pid === process.pid ? 'by this very process' : describe(holder);
    return { alive: true, detail: who };
  }
  const ageMs = nowMs - mtimeMs;
  if (ageMs >= FOREIGN_STALE_MS) return { alive: false };
  return {
    alive: true,
    detail: `${describe(holder)} (seen from another system; it refreshed the lock ${Math.round(ageMs / 1000)} s ago and counts as gone after ${FOREIGN_STALE_MS / 1000} s without refresh)`,
  };
}

/**
 * Takes the lock of `dataDir` or throws DataDirLockedError naming the holder. `onLost` is called
 * when the lock file stops being ours (removed or taken over by hand): the caller must stop writing.
 */
export function lockDataDir(dataDir: string, onLost: (reason: string) => void): DataDirLock {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, LOCK_FILE);
  const self: LockHolder = {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    bootId: readOptional('/proc/sys/kernel/random/boot_id'),
    pidNamespace: pidNamespace(),
    processStart: processStartTicks(process.pid),
    nonce: randomBytes(16).toString('hex'),
  };
  const text = `${JSON.stringify(self)}\n`;
  // Linked into place whole, so nobody ever reads a half-written lock.
  const draft = `${path}.${self.nonce}.new`;
  writeFileSync(draft, text, { mode: 0o644 });
  try {
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        linkSync(draft, path);
        return hold(path, self, onLost);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      let seen: string;
      let mtimeMs: number;
      try {
        seen = readFileSync(path, 'utf8');
        mtimeMs = statSync(path).mtimeMs;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      const holder = parseHolder(seen);
      const verdict = judge(holder, mtimeMs, self, Date.now());
      if (verdict.alive) throw new DataDirLockedError(dataDir, holder, verdict.detail);
      // Stale. Moved aside rather than deleted, so that a lock another starter placed in the
      // meantime is noticed (its content differs) and put back instead of being lost.
      const aside = `${path}.${self.nonce}.stale`;
      try {
        renameSync(path, aside);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      const moved = readOptional(aside);
      if (moved !== seen.trim()) {
        try {
          linkSync(aside, path);
        } catch {
          // A third starter holds it now; the one moved aside notices at its next refresh.
        }
      }
      unlinkSync(aside);
    }
    throw new Error(`could not take the lock ${path}: it keeps changing hands`);
  } finally {
    try {
      unlinkSync(draft);
    } catch {
      // already gone
    }
  }
}

/** What a server or script does when its lock is lost: stop at once rather than write on. */
export function exitOnLockLost(reason: string): void {
  process.stderr.write(`punchcard: ${reason}; stopping so that no two processes write one database\n`);
  process.exit(1);
}

function hold(path: string, self: LockHolder, onLost: (reason: string) => void): DataDirLock {
  const ours = (): boolean => parseHolder(readOptional(path))?.nonce === self.nonce;
  let released = false;
  const timer = setInterval(() => {
    if (released) return;
    if (!ours()) {
      released = true;
      clearInterval(timer);
      onLost(`the lock file ${path} was removed or replaced`);
      return;
    }
    try {
      const now = new Date();
      utimesSync(path, now, now);
    } catch {
      // checked again at the next beat
    }
  }, HEARTBEAT_MS);
  timer.unref();
  return {
    path,
    holder: self,
    release() {
      if (released) return;
      released = true;
      clearInterval(timer);
      if (ours()) {
        try {
          unlinkSync(path);
        } catch {
          // already gone
        }
      }
    },
  };
}
