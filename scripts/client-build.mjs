// Builds the client package (clients/typescript): generates the SDK from the API document the app
// builds in-process (no network) and compiles the package into clients/typescript/dist, when the
// build is missing or older than the routes and the package's sources. `npm install` runs it
// through `prepare`, so the `punchcard` command never generates on first use; `npm pack` in the
// package runs it with --force (`prepack`). Messages go to stderr. Plain JavaScript, like build.mjs.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = join(root, 'clients/typescript');
const STAMP = join(pkg, 'dist/.build-stamp');
const GENERATED = join(pkg, 'src/generated');
const INPUTS = ['src', 'clients/typescript/src', 'clients/typescript/tsconfig.json', 'package-lock.json'];

const force = process.argv.includes('--force');
const ifPossible = process.argv.includes('--if-possible');

function newestMs(path) {
  if (!existsSync(path) || path === GENERATED) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMs(join(path, entry)));
  return newest;
}

function say(text) {
  process.stderr.write(`client-build: ${text}\n`);
}

const builtMs = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
const sourcesMs = Math.max(...INPUTS.map((p) => newestMs(join(root, p))));
if (!force && builtMs > 0 && sourcesMs <= builtMs && existsSync(GENERATED)) process.exit(0);

const require = createRequire(import.meta.url);
let tsc;
let tsx;
try {
  tsc = require.resolve('typescript/bin/tsc');
  tsx = join(dirname(require.resolve('tsx/package.json')), 'dist/cli.mjs');
} catch {
  if (ifPossible) {
    say('TypeScript is not installed (no dev dependencies); the client package is left as it is.');
    process.exit(0);
  }
  say('the client package needs the development install: run `npm install` in the repository.');
  process.exit(1);
}

const startedMs = Date.now();
say('generating the SDK from the API document and compiling clients/typescript');
const run = (args) => {
  const result = spawnSync(process.execPath, args, { cwd: root, stdio: ['ignore', 2, 2] });
  if (result.status !== 0) process.exit(result.status ?? 1);
};
run([tsx, 'scripts/client-generate.ts']);
run([tsc, '-p', 'clients/typescript/tsconfig.json']);
writeFileSync(STAMP, '');
const started = new Date(startedMs);
utimesSync(STAMP, started, started);
say(`done in ${((Date.now() - startedMs) / 1000).toFixed(1)} s`);
