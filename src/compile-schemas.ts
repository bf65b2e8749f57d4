/**
 * The build's last step (scripts/build.mjs): builds the service in-process, on an empty in-memory
 * database, without listening, with compilers that keep each function's standalone source, and
 * writes them to `dist/compiled-schemas.cjs` (src/wire/precompiled-schemas.ts). A started service
 * then takes its routes' schema functions from that file instead of compiling them
 * (docs/decisions.md, "Schema compilers").
 *
 *     node dist/compile-schemas.js
 */
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { systemClock } from './shared/clock.js';
import { openDatabase } from './store/db.js';
import { PRECOMPILED_FILE, writePrecompiledSchemas } from './wire/precompiled-schemas.js';
import { schemaCompilers } from './wire/schema-compilers.js';

/** The standalone source of every schema function the service compiles at its start, by digest. */
export async function compileServiceSchemas(): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  const database = await openDatabase({ databaseUrl: null, dataDir: null });
  try {
    // The settings a start reads by default; none of them changes a route's schemas.
    const config = loadConfig({ ADMIN_TOKEN: 'build-only-token-0123456789', OUTBOX_DISABLED: 'true' });
    const compilersFactory = schemaCompilers({
      withSource: true,
      onCompiled: (_kind, digest, made) => {
        if (made.source !== null) sources.set(digest, made.source);
      },
    });
    const app = await buildApp(
      { config, database, clock: systemClock, adminTokenHash: 'none' },
      { logger: false, compilersFactory },
    );
    await app.ready();
    await app.close();
  } finally {
    await database.close();
  }
  return sources;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  const startedMs = Date.now();
  const sources = await compileServiceSchemas();
  writePrecompiledSchemas(sources);
  process.stderr.write(
    `build: ${sources.size} schema functions precompiled into ${PRECOMPILED_FILE} in ${((Date.now() - startedMs) / 1000).toFixed(1)} s\n`,
  );
}
