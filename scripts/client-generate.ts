import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

/** Where the typed client package keeps its generated part (not in git: see docs/decisions.md). */
export const GENERATED_DIR = resolve('clients/typescript/src/generated');

/** The API document exactly as /openapi.json serves it, built in-process without listening. */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  // Loaded here, not at the top: the check whether the client is up to date must not load the app.
  const [{ buildApp }, { loadConfig }, { systemClock }, { openDatabase }] = await Promise.all([
    import('../src/app.js'),
    import('../src/config.js'),
    import('../src/shared/clock.js'),
    import('../src/store/db.js'),
  ]);
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
  const { createClient } = await import('@hey-api/openapi-ts');
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

/**
 * What the generated client is made from, relative to the repository: every file under src/ (the
 * routes, their schemas and all the app is built with; the compiled build's rootDir is src/, so
 * the app imports nothing of the repository outside it), this script (the generator's settings)
 * and the lockfile (the versions of the document builder and of the generator).
 */
export const CLIENT_INPUTS = ['src', 'scripts/client-generate.ts', 'package-lock.json'];

/** Beside the generated files: the hashes of the inputs and of the files they were generated into. */
const STAMP = '.input-hash';

/** The files under a path, relative to root, sorted (a missing path has none). */
function filesUnder(root: string, path: string): string[] {
  const full = join(root, path);
  if (!existsSync(full)) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(root, join(e.parentPath, e.name)))
    .sort();
}

/** sha256 over the names and contents of the given files. */
function hashFiles(root: string, files: string[]): string {
  const hash = createHash('sha256');
  for (const file of files) {
    const content = readFileSync(join(root, file));
    hash.update(`${file}\0${content.length}\0`).update(content);
  }
  return hash.digest('hex');
}

/** A hash of the generated client's inputs under root: a changed, added or removed file changes it. */
export function clientInputHash(root: string): string {
  return hashFiles(
    root,
    CLIENT_INPUTS.flatMap((path) => filesUnder(root, path)),
  );
}

function outputHash(dir: string): string {
  return hashFiles(
    dir,
    filesUnder(dir, '.').filter((f) => f !== STAMP),
  );
}

/** Records, after a generation from root's inputs hashed as `inputHash`, what it was made from. */
export function recordClientInputs(dir: string, inputHash: string): void {
  writeFileSync(join(dir, STAMP), `${JSON.stringify({ input: inputHash, output: outputHash(dir) })}\n`);
}

/**
 * True when the generated client in dir was generated from root's inputs as they are now and has
 * not been changed since: the same input hash recorded, the same generated files.
 */
export function clientUpToDate(root: string, dir: string): boolean {
  const stamp = join(dir, STAMP);
  if (!existsSync(stamp)) return false;
  let recorded: { input?: unknown; output?: unknown };
  try {
    recorded = JSON.parse(readFileSync(stamp, 'utf8')) as typeof recorded;
  } catch {
    return false;
  }
  return recorded.input === clientInputHash(root) && recorded.output === outputHash(dir);
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const force = args.includes('--force');
  const url = args.find((a) => !a.startsWith('--'));
  if (url) {
    // From a running server: no local input to record (and the stamp goes with the old files).
    const doc = (await (await fetch(new URL('/openapi.json', url))).json()) as Record<string, unknown>;
    await generateClient(doc, GENERATED_DIR);
  } else {
    const root = resolve('.');
    // Hashed before the document is built: a source saved meanwhile makes the next run generate.
    const inputHash = clientInputHash(root);
    if (!force && clientUpToDate(root, GENERATED_DIR)) {
      process.stderr.write(`TypeScript client in ${GENERATED_DIR} is up to date with its sources\n`);
      return;
    }
    await generateClient(await openApiDocument(), GENERATED_DIR);
    recordClientInputs(GENERATED_DIR, inputHash);
  }
  // The answer of a command goes to stdout; this is a message (docs/decisions.md, "The command line").
  process.stderr.write(`TypeScript client generated in ${GENERATED_DIR}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((err: unknown) => {
    process.stderr.write(`client:generate failed: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
