import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Clock } from '../shared/clock.js';
import type { Database } from './db.js';

/**
 * Backups of the embedded database (docs/decisions.md, "Backups of the embedded database"): the
 * archive the operator API answers, and the ones the server writes into BACKUP_DIR on its own.
 */

const gzipped = promisify(gzip);

/** `punchcard-backup-2026-12-05T14-03-11Z.tar.gz`: sorts by time, no character a file system refuses. */
export function backupFileName(nowMs: number): string {
  const at = new Date(nowMs)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replaceAll(':', '-');
  return `punchcard-backup-${at}.tar.gz`;
}

const BACKUP_FILE = /^punchcard-backup-(\d{4}-\d\d-\d\d)T(\d\d)-(\d\d)-(\d\d)Z\.tar\.gz$/;

/** When a backup of this name was taken; null for a file of another name. */
export function backupTime(name: string): number | null {
  const m = BACKUP_FILE.exec(name);
  if (!m) return null;
  const ms = Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}Z`);
  return Number.isNaN(ms) ? null : ms;
}

export interface BackupArchive {
  /** The data directory's tar archive, gzipped. */
  readonly gzip: Buffer;
  /** The tar archive's size. */
  readonly bytes: number;
  /** How long requests waited: the copy of the directory. */
  readonly copyMs: number;
  readonly gzipMs: number;
}

/** The embedded database's backup, gzipped after the connection is given back; null on PostgreSQL. */
export async function backupArchive(database: Database): Promise<BackupArchive | null> {
  const started = performance.now();
  const archive = await database.backup();
  if (archive === null) return null;
  const copied = performance.now();
  const body = await gzipped(Buffer.from(await archive.arrayBuffer()));
  return {
    gzip: body,
    bytes: archive.size,
    copyMs: Math.round(copied - started),
    gzipMs: Math.round(performance.now() - copied),
  };
}

export interface BackupLog {
  info(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** After a failed backup, the next try comes this much later (or at the interval, if sooner). */
const RETRY_MS = 15 * 60_000;
/** How often the server looks whether a backup is due. */
const CHECK_MS = 60_000;

/**
 * The server's own backups into `dir`: one when the newest there is `everyMinutes` old (the first a
 * minute after a start with none), written under a temporary name and renamed when whole, the
 * oldest removed beyond `keep`. Only files of the backups' own name are counted and removed.
 */
export class ScheduledBackups {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<string | null> | null = null;
  private retryAtMs = 0;
  /** When the newest backup in the directory was taken; null: none yet. */
  private lastMs: number | null = null;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly options: { dir: string; everyMinutes: number; keep: number },
  ) {}

  /** For /metrics: when the newest backup was taken. */
  status(): { readonly lastMs: number | null } {
    return { lastMs: this.lastMs };
  }

  start(log: BackupLog): void {
    if (this.timer !== null) return;
    // The newest backup already there, for /metrics before the first of this process.
    void this.backups()
      .then((names) => {
        const newest = names.at(-1);
        if (newest !== undefined && this.lastMs === null) this.lastMs = backupTime(newest);
      })
      .catch(() => undefined);
    this.timer = setInterval(() => void this.tick(log), CHECK_MS);
    this.timer.unref();
  }

  /** One look: a backup taken when one is due (answers its path), else null. */
  tick(log: BackupLog): Promise<string | null> {
    if (this.running !== null) return this.running;
    this.running = this.takeIfDue(log)
      .catch((err: unknown) => {
        this.retryAtMs = this.clock.nowMs() + Math.min(RETRY_MS, this.options.everyMinutes * 60_000);
        log.error({ err, dir: this.options.dir }, 'backup of the embedded database failed');
        return null;
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  /** The names of the backups in the directory, oldest first. */
  async backups(): Promise<string[]> {
    const names = await readdir(this.options.dir).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
    return names.filter((n) => backupTime(n) !== null).sort();
  }

  private async takeIfDue(log: BackupLog): Promise<string | null> {
    const nowMs = this.clock.nowMs();
    if (nowMs < this.retryAtMs) return null;
    const newest = (await this.backups()).at(-1);
    const newestMs = newest === undefined ? null : backupTime(newest);
    if (newestMs !== null && nowMs - newestMs < this.options.everyMinutes * 60_000) return null;
    const archive = await backupArchive(this.database);
    if (archive === null) return null;
    await mkdir(this.options.dir, { recursive: true });
    const name = backupFileName(nowMs);
    const path = join(this.options.dir, name);
    const partial = join(this.options.dir, `.${name}.partial`);
    try {
      await writeFile(partial, archive.gzip, { flush: true });
      await rename(partial, path);
    } catch (err) {
      // A full disk must not fill up with the halves of failed tries.
      await rm(partial, { force: true }).catch(() => undefined);
      throw err;
    }
    this.lastMs = nowMs;
    const removed = (await this.backups()).slice(0, -this.options.keep);
    for (const old of removed) await rm(join(this.options.dir, old), { force: true });
    log.info(
      { path, bytes: archive.bytes, gzipBytes: archive.gzip.length, copyMs: archive.copyMs, removed },
      'backup of the embedded database written',
    );
    return path;
  }

  /** Stops looking and waits for a backup under way. */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
