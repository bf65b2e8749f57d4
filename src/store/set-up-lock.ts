import { type DataDirLock, DataDirLockedError, lockDataDir } from './data-dir-lock.js';

/**
 * The embedded database is made and migrated by a child process of the server (db.ts,
 * embedded-setup.ts). A server killed meanwhile (SIGKILL, the OOM killer) would leave that child
 * running, and a start right after would remove or open the directory the child still writes: two
 * writers of one database, or a start that fails (docs/decisions.md, "One process per DATA_DIR").
 * So the child holds a lock of its own while it works (data-dir-lock.ts, in `<place>.setup`) and
 * ends as soon as its server is gone; a start waits until no live child holds that lock.
 */

/** How often the set-up child looks whether the server that started it still runs. */
const SERVER_CHECK_MS = 100;
/** How long a start waits for the set-up child of a killed start to end. */
const SET_UP_WAIT_MS = 120_000;

function setUpLockDir(place: string): string {
  return `${place}.setup`;
}

/**
 * Taken by the set-up child for the database at `place` before it writes anything; the child ends
 * (exit code 1; the next start makes the database again, or applies the migrations still due) as
 * soon as the server `serverPid` is gone.
 */
export function holdSetUp(place: string, serverPid: number): DataDirLock {
  const end = (): never => process.exit(1);
  const lock = lockDataDir(setUpLockDir(place), end);
  // Orphaned before the lock was taken: a start after the server may have gone past it already.
  if (process.ppid !== serverPid) end();
  setInterval(() => {
    if (process.ppid !== serverPid) end();
  }, SERVER_CHECK_MS).unref();
  return lock;
}

/** Resolves once no set-up child works on the database at `place` (at once, nearly always). */
export async function awaitSetUpDone(place: string, limitMs = SET_UP_WAIT_MS): Promise<void> {
  const started = Date.now();
  for (;;) {
    try {
      lockDataDir(setUpLockDir(place), () => undefined).release();
      return;
    } catch (err) {
      if (!(err instanceof DataDirLockedError) || Date.now() - started > limitMs) throw err;
      await new Promise((resolve) => setTimeout(resolve, SERVER_CHECK_MS));
    }
  }
}
