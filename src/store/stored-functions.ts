import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CODE_ROOT } from '../shared/code-root.js';

/**
 * The SQL functions of the service, each in a file of its own beside the module that owns it:
 * `src/<module>/sql/<function>.sql` (docs/architecture.md, "The stored-function layer"). The
 * migrator applies a file whenever its text changes (migrate.ts); numbered migrations create none.
 *
 * A file holds one statement, `CREATE OR REPLACE FUNCTION <its name>(` after leading comments,
 * its body between the only two `$$` of the file, and nothing after them but `;`.
 */
export interface StoredFunction {
  /** The function's name: the file's name without `.sql`. */
  readonly name: string;
  /** Where it is, under the source root (`baskets/sql/grant_basket.sql`), for messages. */
  readonly path: string;
  /** The statement, as the file holds it. */
  readonly text: string;
  /** SHA-256 of the text, hex: a file is applied again when this differs from the recorded one. */
  readonly sha256: string;
  /** The body between `$$` and `$$`, as PostgreSQL keeps it (`pg_proc.prosrc`). */
  readonly body: string;
}

const NAME = /^[a-z_][a-z0-9_]*$/;

/** Parses one function file; throws a message naming the file when it does not keep the form. */
export function parseStoredFunction(path: string, text: string): StoredFunction {
  const fileName = path.split('/').pop() ?? '';
  const name = fileName.replace(/\.sql$/, '');
  const refuse = (why: string): never => {
    throw new Error(`stored function file ${path}: ${why}`);
  };
  if (!fileName.endsWith('.sql') || !NAME.test(name)) refuse('the name must be <function_name>.sql');
  const statement = text
    .split('\n')
    .filter((line) => !/^\s*(--.*)?$/.test(line))
    .join('\n');
  if (!statement.startsWith(`CREATE OR REPLACE FUNCTION ${name}(`))
    refuse(`it must start (after comments) with "CREATE OR REPLACE FUNCTION ${name}("`);
  const parts = text.split('$$');
  if (parts.length !== 3) refuse('the body must be the only text between $$ and $$');
  if ((parts[2] ?? '').trim() !== ';') refuse('nothing but ";" may follow the body');
  return {
    name,
    path,
    text,
    sha256: createHash('sha256').update(text, 'utf8').digest('hex'),
    body: parts[1] ?? '',
  };
}

/**
 * The file's statement made to create the function in the session's temporary schema under the
 * same name: what the migrator creates first to learn the signature the file declares.
 */
export function temporaryCopy(f: StoredFunction): string {
  const header = `CREATE OR REPLACE FUNCTION ${f.name}(`;
  const lines = f.text.split('\n');
  const at = lines.findIndex((line) => !/^\s*(--.*)?$/.test(line));
  return [
    ...lines.slice(0, at),
    `CREATE FUNCTION pg_temp.${f.name}(${(lines[at] ?? '').slice(header.length)}`,
    ...lines.slice(at + 1),
  ].join('\n');
}

/**
 * Which files are due: those whose text differs from the one recorded as applied, or whose
 * function is not in the database (`present`); and the recorded functions whose file is gone.
 */
export function dueFunctions(
  files: readonly StoredFunction[],
  recorded: ReadonlyMap<string, string>,
  present: ReadonlySet<string>,
): { apply: StoredFunction[]; drop: string[] } {
  const names = new Set(files.map((f) => f.name));
  return {
    apply: files.filter((f) => recorded.get(f.name) !== f.sha256 || !present.has(f.name)),
    drop: [...recorded.keys()].filter((name) => !names.has(name)).sort(),
  };
}

/**
 * Every function file under `root` (`<root>/<module>/sql/*.sql`), ordered by function name: the
 * order they are applied in. Two files of one name are refused. By default the code's root: `src/`
 * when the service runs from its sources, `dist/` when built (the build copies the `.sql` files
 * beside the compiled modules, scripts/build.mjs).
 */
export function storedFunctionFiles(root: string = CODE_ROOT): StoredFunction[] {
  const out: StoredFunction[] = [];
  for (const module of readdirSync(root, { withFileTypes: true })) {
    if (!module.isDirectory()) continue;
    const dir = join(root, module.name, 'sql');
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.sql'))) {
      out.push(parseStoredFunction(`${module.name}/sql/${file}`, readFileSync(join(dir, file), 'utf8')));
    }
  }
  out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (let i = 1; i < out.length; i++) {
    const [a, b] = [out[i - 1], out[i]];
    if (a && b && a.name === b.name)
      throw new Error(`stored function ${a.name} is in ${a.path} and ${b.path}`);
  }
  return out;
}
