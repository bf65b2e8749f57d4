import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The pure parts stay pure: src/engine and the posting rules of src/ledger import no web
 * framework, no database driver and no node: module, and read no clock.
 */
const PURE = ['src/engine', 'src/ledger/rules'];
const FORBIDDEN_IMPORT =
  /from\s+['"](fastify|kysely|pg|@electric-sql\/[^'"]+|node:[^'"]+|fs|path|crypto)['"]/;
const CLOCK = /\bDate\.now\(\)|new Date\(\)|performance\.now\(\)/;

function files(dir: string): string[] {
  let out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out = out.concat(files(path));
    else if (path.endsWith('.ts') && !path.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

const problems: string[] = [];
for (const dir of PURE) {
  for (const file of files(dir)) {
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((line, i) => {
        if (FORBIDDEN_IMPORT.test(line)) problems.push(`${file}:${i + 1}: impure import: ${line.trim()}`);
        if (CLOCK.test(line)) problems.push(`${file}:${i + 1}: reads the clock: ${line.trim()}`);
      });
  }
}
if (problems.length > 0) {
  process.stderr.write(`Pure modules must stay pure:\n${problems.join('\n')}\n`);
  process.exit(1);
}
process.stdout.write(`check-imports: ${PURE.join(', ')} are pure\n`);
