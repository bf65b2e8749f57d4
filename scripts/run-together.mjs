// Runs the named npm scripts at the same time and fails when any of them fails: `npm test` runs the
// type check, lint and the import rules so (each is a single-threaded process; one after the other
// they left a core idle on a two-core machine). Each script's output is printed in one piece when
// it ends, with its name, time and exit code, so the outputs never interleave. Plain JavaScript:
// it starts in milliseconds.
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import process from 'node:process';

const names = process.argv.slice(2);
if (names.length === 0) {
  process.stderr.write('usage: node scripts/run-together.mjs <npm script>...\n');
  process.exit(2);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(name) {
  const startedMs = Date.now();
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    const finish = (code) => {
      const seconds = ((Date.now() - startedMs) / 1000).toFixed(1);
      const output = Buffer.concat(chunks).toString('utf8');
      process.stdout.write(
        `> npm run ${name}\n${output}${output.endsWith('\n') || output === '' ? '' : '\n'}`,
      );
      process.stdout.write(
        `${code === 0 ? 'passed' : `FAILED (exit code ${code})`}: ${name}, ${seconds} s\n\n`,
      );
      resolve(code);
    };
    child.once('error', (err) => {
      chunks.push(Buffer.from(`${err.message}\n`));
      finish(1);
    });
    child.once('close', (code, signal) => finish(code ?? (signal ? 1 : 0)));
  });
}

const codes = await Promise.all(names.map(run));
const failed = names.filter((_, i) => codes[i] !== 0);
if (failed.length > 0) {
  process.stderr.write(`failed: ${failed.join(', ')}\n`);
  process.exit(1);
}
