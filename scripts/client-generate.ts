import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createClient } from '@hey-api/openapi-ts';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { systemClock } from '../src/shared/clock.js';
import { openDatabase } from '../src/store/db.js';

/** Where the typed client package keeps its generated part (not in git: see docs/decisions.md). */
export const GENERATED_DIR = resolve('clients/typescript/src/generated');

/** The API document exactly as /openapi.json serves it, built in-process without listening. */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const database = await openDatabase({ databaseUrl: null, dataDir: null });
  try {
    const config = loadConfig({ ADMIN_TOKEN: 'document-only-token-0123456789', NODE_ENV: 'test' });
    const app = await buildApp(
      { config, database, clock: systemClock, adminTokenHash: 'none' },
      { logger: false },
    );
    await app.ready();
    const doc = app.swagger() as unknown as Record<string, unknown>;
    await app.close();
    return JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
  } finally {
    await database.close();
  }
}

/** Generates the TypeScript client (types, SDK functions, fetch client) from an API document. */
export async function generateClient(doc: unknown, outDir: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-openapi-'));
  try {
    const input = join(dir, 'openapi.json');
    writeFileSync(input, JSON.stringify(doc));
    await createClient({
      input,
      output: { path: outDir, clean: true },
      // The runtime configuration sits next to the generated folder (clients/typescript/src).
      plugins: [
        { name: '@hey-api/client-fetch', runtimeConfigPath: '../client-config.js' },
        '@hey-api/typescript',
        '@hey-api/sdk',
      ],
      logs: { level: 'silent' },
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const url = process.argv[2];
  const doc = url
    ? ((await (await fetch(new URL('/openapi.json', url))).json()) as Record<string, unknown>)
    : await openApiDocument();
  await generateClient(doc, GENERATED_DIR);
  // The answer of a command goes to stdout; this is a message (docs/decisions.md, "The command line").
  process.stderr.write(`TypeScript client generated in ${GENERATED_DIR}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    process.stderr.write(`client:generate failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
