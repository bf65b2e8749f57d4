// Compiles src/ into dist/ when dist/ is missing or older than what it is built from, so that
// `npm start` does not spend seconds on a compile it already did. `npm install` and `npm ci` build
// through `prepare`; `--force` (npm run build) always builds. Plain JavaScript: it runs before
// anything is compiled and must start in milliseconds.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';

const STAMP = join('dist', '.build-stamp');
const INPUTS = ['src', 'tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];

const force = process.argv.includes('--force');
// From `prepare`: an install without dev dependencies has no compiler; that install is not refused.
const ifPossible = process.argv.includes('--if-possible');

/** The newest modification time under a path (a directory's own time covers deleted files). */
function newestMs(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMs(join(path, entry)));
  return newest;
}

/** The JSON files under a directory. */
function jsonUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return jsonUnder(path);
    return entry.name.endsWith('.json') ? [path] : [];
  });
}

function say(text) {
  process.stderr.write(`build: ${text}\n`);
}

const builtMs = existsSync(STAMP) ? statSync(STAMP).mtimeMs : 0;
const sourcesMs = Math.max(...INPUTS.map(newestMs));
if (!force && builtMs > 0 && sourcesMs <= builtMs) process.exit(0);

try {
  createRequire(import.meta.url).resolve('typescript');
} catch {
  if (ifPossible) {
    say('TypeScript is not installed (no dev dependencies); dist/ is left as it is.');
    process.exit(0);
  }
  say('dist/ is missing or older than src/, and TypeScript is not installed: run `npm install`.');
  process.exit(1);
}

const startedMs = Date.now();
say(builtMs === 0 ? 'compiling src/ into dist/' : 'src/ changed since the last build; compiling');
// Files of deleted sources must not linger in dist/.
rmSync('dist', { recursive: true, force: true });
// Each module transpiled on its own with TypeScript's own emitter and the build's compiler options,
// without checking its types: `npm test` and CI check them (`tsc -p tsconfig.json --noEmit`), and
// the check was some three quarters of the build's time (docs/decisions.md, "The build compiles
// without checking types"). The code keeps to `verbatimModuleSyntax`, so a module compiles alone
// to the same bytes, source maps included, as `tsc -p tsconfig.build.json` writes; the package is
// ESM ("type": "module"), which a module compiled alone cannot see, so it is said here.
const ts = createRequire(import.meta.url)('typescript');
const config = ts.getParsedCommandLineOfConfigFile(
  'tsconfig.build.json',
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      say(`tsconfig.build.json: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
      process.exit(1);
    },
  },
);
const options = {
  ...config.options,
  module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler,
};
let broken = 0;
for (const file of config.fileNames) {
  const js = join('dist', relative('src', file)).replace(/\.ts$/, '.js');
  const emitted = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: options,
    fileName: file,
    reportDiagnostics: true,
  });
  // What a module alone can show: its syntax. A file that does not parse stops the build.
  for (const d of emitted.diagnostics ?? []) {
    const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : null;
    const where = at ? `${file}:${at.line + 1}:${at.character + 1}` : file;
    say(`${where}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    broken++;
  }
  mkdirSync(dirname(js), { recursive: true });
  writeFileSync(js, emitted.outputText);
  if (emitted.sourceMapText !== undefined) writeFileSync(`${js}.map`, emitted.sourceMapText);
}
if (broken > 0) process.exit(1);
// The JSON modules the code imports (`resolveJsonModule`), as tsc writes them beside the code.
for (const json of jsonUnder('src')) {
  const out = join('dist', relative('src', json));
  mkdirSync(dirname(out), { recursive: true });
  copyFileSync(json, out);
}
// The server's own modules bundled into dist/server.js, the packages left to node_modules: a start
// reads, resolves and links one file of ours instead of some 380, a fifth less of its CPU on
// PostgreSQL (docs/decisions.md, "The server bundled into one file"). The modules stay compiled one by one
// beside it for the build's steps below and the embedded database's set-up child.
const { build } = await import('esbuild');
await build({
  entryPoints: [join('dist', 'server.js')],
  outfile: join('dist', 'server.js'),
  allowOverwrite: true,
  bundle: true,
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  logLevel: 'warning',
});
// The stored functions (src/<module>/sql/*.sql) go beside the compiled modules: the migrator reads
// them from there (src/store/stored-functions.ts).
let copied = 0;
for (const module of readdirSync('src', { withFileTypes: true })) {
  const dir = join('src', module.name, 'sql');
  if (!module.isDirectory() || !existsSync(dir)) continue;
  mkdirSync(join('dist', module.name, 'sql'), { recursive: true });
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
    copyFileSync(join(dir, file), join('dist', module.name, 'sql', file));
    copied++;
  }
}
// The embedded database's empty cluster, made once here instead of by initdb at a new data
// directory's first start (docs/decisions.md, "Starting and running it"); the schema step below
// opens its database from it too.
const cluster = spawnSync(process.execPath, [join('dist', 'store', 'make-initdb-template.js')], {
  stdio: 'inherit',
});
if (cluster.status !== 0) process.exit(cluster.status ?? 1);
// The routes' schema functions, compiled once here instead of at every start (docs/decisions.md,
// "Schema compilers"): the build's last step, so it runs the modules just compiled.
const schemas = spawnSync(process.execPath, [join('dist', 'compile-schemas.js')], {
  stdio: 'inherit',
});
if (schemas.status !== 0) process.exit(schemas.status ?? 1);
writeFileSync(STAMP, '');
// The stamp carries the time the compile started: a source saved during the compile is newer.
const started = new Date(startedMs);
utimesSync(STAMP, started, started);
say(`done in ${((Date.now() - startedMs) / 1000).toFixed(1)} s (${copied} stored functions copied)`);
