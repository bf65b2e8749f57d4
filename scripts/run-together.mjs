// Runs the named npm scripts at the same time and fails when any of them fails: `npm test` runs the
// type check, lint and the import rules so (each is a single-threaded process; one after the other
// they left a core idle on a two-core machine), beside Vitest. Each script's output is printed in
// one piece when it ends, with its name, time and exit code, so the outputs never interleave.
//
// `--main <script> [arguments]`, last: that script (Vitest in `npm test`, with the arguments given
// to `npm test --`) starts at the same moment, its output goes straight to the terminal as it
// comes, and the others run at a lower CPU priority, so they take the CPU the main script leaves
// idle (its tests wait on databases, child servers and the browser) instead of slowing it down. A
// failure of any script still fails the run; the results of all are repeated after the main
// script's output. Plain JavaScript: it starts in milliseconds.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import process from 'node:process';

/** The niceness of the scripts beside the main one (0 is the default, 19 the lowest priority). */
const BESIDE_NICENESS = 10;

const args = process.argv.slice(2);
const mainAt = args.indexOf('--main');
const names = mainAt === -1 ? args : args.slice(0, mainAt);
const main = mainAt === -1 ? null : (args[mainAt + 1] ?? null);
// Whatever follows the main script's name is handed to it (`npm test -- <test files>`).
const mainArgs = mainAt === -1 ? [] : args.slice(mainAt + 2);
if ((names.length === 0 && main === null) || (mainAt !== -1 && main === null)) {
  process.stderr.write(
    'usage: node scripts/run-together.mjs <npm script>... [--main <npm script> [its arguments]...]\n',
  );
  process.exit(2);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** A line saying how a script ended. */
function verdict(name, code, seconds) {
  return `${code === 0 ? 'passed' : `FAILED (exit code ${code})`}: ${name}, ${seconds} s\n`;
}

/** Runs an npm script with its output kept and printed whole when it ends. */
function runBuffered(name, niceness) {
  const startedMs = Date.now();
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    if (niceness > 0 && child.pid !== undefined) {
      // Before npm has started its own child: the check's process inherits the priority.
      try {
        setPriority(child.pid, niceness);
      } catch {
        // Not permitted here: the script runs at the normal priority.
      }
    }
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    const finish = (code) => {
      const seconds = ((Date.now() - startedMs) / 1000).toFixed(1);
      const output = Buffer.concat(chunks).toString('utf8');
      process.stdout.write(
        `> npm run ${name}\n${output}${output.endsWith('\n') || output === '' ? '' : '\n'}`,
      );
      process.stdout.write(`${verdict(name, code, seconds)}\n`);
      resolve({ name, code, seconds });
    };
    child.once('error', (err) => {
      chunks.push(Buffer.from(`${err.message}\n`));
      finish(1);
    });
    child.once('close', (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
}

/** Runs an npm script with its output going straight to this process's own. */
function runLive(name, extra) {
  const startedMs = Date.now();
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', name, ...(extra.length > 0 ? ['--', ...extra] : [])], {
      stdio: 'inherit',
    });
    const finish = (code) => resolve({ name, code, seconds: ((Date.now() - startedMs) / 1000).toFixed(1) });
    child.once('error', (err) => {
      process.stderr.write(`${err.message}\n`);
      finish(1);
    });
    child.once('close', (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
}

const results = await Promise.all([
  ...(main === null ? [] : [runLive(main, mainArgs)]),
  ...names.map((name) => runBuffered(name, main === null ? 0 : BESIDE_NICENESS)),
]);
if (main !== null) {
  // The checks' results again, after the main script's last lines.
  process.stdout.write(`\n${results.map((r) => verdict(r.name, r.code, r.seconds)).join('')}`);
}
const failed = results.filter((r) => r.code !== 0).map((r) => r.name);
if (failed.length > 0) {
  process.stderr.write(`failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
