import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PACKAGE_ROOT } from '../shared/code-root.js';

/**
 * The embedded database's empty cluster, as PGlite's initdb makes it: made once by the build
 * (scripts/build.mjs runs make-initdb-template.ts) and unpacked into a new data directory instead
 * of running initdb again at the directory's first start (docs/decisions.md, "Starting and running it").
 * PGlite's initdb reads nothing of the machine (the cluster is always UTC, the C locale and UTF-8),
 * so one cluster serves every directory. The file's name carries PGlite's version: a build made
 * for another version has none for the installed one, and initdb runs as before.
 */
function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  const manifest = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as {
    version: string;
  };
  return manifest.version;
}

let file: string | null = null;

/**
 * Where the build puts the cluster for the installed PGlite: in its dist/ whether this module runs
 * from src/ or from dist/. Named on first use, so that a process on PostgreSQL never reads
 * PGlite's manifest.
 */
export function initdbTemplateFile(): string {
  file ??= join(PACKAGE_ROOT, 'dist', `pglite-initdb-${pgliteVersion()}.tar`);
  return file;
}

/** The build's cluster for the installed PGlite, or null (no build, or one for another version). */
export function initdbTemplate(): string | null {
  return existsSync(initdbTemplateFile()) ? initdbTemplateFile() : null;
}

/** The cluster in `from` as PGlite's `loadDataDir` takes it. */
export function readInitdbTemplate(from: string): Blob {
  return new Blob([readFileSync(from)]);
}

/** Runs initdb in memory and writes the cluster to `to`, whole or not at all. */
export async function makeInitdbTemplate(to: string = initdbTemplateFile()): Promise<void> {
  const pglite = await PGlite.create();
  try {
    const dump = await pglite.dumpDataDir('none');
    const part = `${to}.part`;
    writeFileSync(part, Buffer.from(await dump.arrayBuffer()));
    renameSync(part, to);
  } finally {
    await pglite.close();
  }
}
