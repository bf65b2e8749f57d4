import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The dependency rules of the service (docs/architecture.md), checked on the import graph of
 * src/. A module is named by its path under src/ ("baskets/basket-upload.ts"); its folder is the
 * first segment ("baskets"), and a file directly in src/ is a folder of its own ("app.ts").
 *
 * 1. The domain knows no interface: a domain folder imports no wire folder and no web framework,
 *    and nothing of the app's construction (app.ts, services.ts, context.ts, config.ts, ...): its
 *    dependencies are handed to it, so no state of the app hides in a domain module.
 * 2. The engine and the ledger's posting rules are pure: no web framework, no database driver, no
 *    node: module, and no clock (time comes in as an argument).
 * 3. Route files hold no queries: a `*.routes.ts` imports no query builder or database driver,
 *    and no module of an interface builds a query on the handle it is given (selectFrom,
 *    insertInto, updateTable, deleteFrom, transaction, sql``, CompiledQuery.raw): each domain module keeps its
 *    queries in its store file.
 * 3b. In the domain, only store files build queries: outside a `*.store.ts` no module of a domain
 *    folder calls selectFrom, insertInto, updateTable, deleteFrom, sql`` or CompiledQuery.raw (a use case may open a
 *    transaction and hand it to store functions). Exempt: `store/` (the database handle,
 *    migrations and the readiness probe).
 * 4. No import loop between folders, and none between modules outside src/store/ (type imports
 *    included): a loop means two modules share a document neither owns; it belongs in a model file
 *    both import (baskets/basket-model.ts, orders/order-model.ts).
 * 5. The interfaces stand apart: pos, checkout, admin, portal, web and ops import nothing of each
 *    other; what two of them share lives in the domain or in wire/ (documents/ for schemas).
 */

export interface ModuleImports {
  /** Path under src/, with forward slashes. */
  readonly module: string;
  /** Source lines, for the clock rule and for messages. */
  readonly lines: readonly string[];
  /** What it imports: other modules (paths under src/) or packages ("fastify", "node:fs"). */
  readonly imports: readonly { readonly target: string; readonly line: number }[];
}

export interface DependencyRules {
  /** Folders of the domain: they may import each other, but no wire. */
  readonly domain: readonly string[];
  /** Folders of the interfaces (and their transport toolkit): only other wires and the app import them. */
  readonly wires: readonly string[];
  /** Packages the domain may not import (prefixes: "@fastify/" covers every plugin). */
  readonly webFramework: readonly string[];
  /** Modules or folders (prefixes of module paths) that must stay pure. */
  readonly pure: readonly string[];
  /** Packages a pure module may not import (prefixes). */
  readonly impurePackages: readonly string[];
  /** Packages a route file may not import (prefixes). */
  readonly queryBuilders: readonly string[];
  /** Folders of the interfaces, which import nothing of each other. */
  readonly interfaces: readonly string[];
  /** Modules of the app's construction (files directly in src/), which the domain may not import. */
  readonly construction: readonly string[];
  /** Domain folders whose modules may build queries outside a store file. */
  readonly queriesAnywhere: readonly string[];
}

export const RULES: DependencyRules = {
  domain: [
    'portal-users',
    'baskets',
    'campaigns',
    'cards',
    'engine',
    'ledger',
    'loyalty',
    'merchants',
    'orders',
    'notifications',
    'outbox',
    'receipts',
    'reports',
    'shared',
    'sortiment',
    'store',
    'webhooks',
  ],
  wires: ['pos', 'admin', 'checkout', 'portal', 'ops', 'consumer-pages', 'wire'],
  webFramework: ['fastify', '@fastify/'],
  pure: ['engine/', 'ledger/rules/'],
  impurePackages: ['fastify', '@fastify/', 'kysely', 'pg', '@electric-sql/', 'node:', 'fs', 'path', 'crypto'],
  queryBuilders: ['kysely', 'pg', '@electric-sql/'],
  interfaces: ['pos', 'checkout', 'admin', 'portal', 'consumer-pages', 'ops'],
  construction: ['app.ts', 'bootstrap.ts', 'config.ts', 'context.ts', 'server.ts', 'services.ts'],
  // store/ is the database layer itself.
  queriesAnywhere: ['store'],
};

const CLOCK = /\bDate\.now\(\)|new Date\(\)|performance\.now\(\)/;
const BUILDS_QUERY =
  /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql(<|`|\.raw\()|\bCompiledQuery\.raw\(/;
const QUERY = new RegExp(`${BUILDS_QUERY.source}|\\.transaction\\(\\)`);

export function folderOf(module: string): string {
  const i = module.indexOf('/');
  return i < 0 ? module : module.slice(0, i);
}

function isPackage(target: string): boolean {
  return !target.endsWith('.ts');
}

function matchesPackage(target: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => (p.endsWith('/') || p.endsWith(':') ? target.startsWith(p) : target === p));
}

/** Folder loops: every strongly connected set of two or more folders, named in a stable order. */
export function folderLoops(modules: readonly ModuleImports[]): string[][] {
  return loops(modules, folderOf);
}

/**
 * Module loops outside src/store/ (whose schema and table files name each other by design): every
 * strongly connected set of two or more modules, type imports included.
 */
export function moduleLoops(modules: readonly ModuleImports[]): string[][] {
  return loops(modules, (m) => m).filter((loop) => !loop.every((m) => m.startsWith('store/')));
}

/** The strongly connected sets of two or more nodes of the import graph, nodes named by `nodeOf`. */
function loops(modules: readonly ModuleImports[], nodeOf: (module: string) => string): string[][] {
  const edges = new Map<string, Set<string>>();
  for (const m of modules) {
    const from = nodeOf(m.module);
    if (!edges.has(from)) edges.set(from, new Set());
    for (const i of m.imports) {
      if (isPackage(i.target)) continue;
      const to = nodeOf(i.target);
      if (to !== from) edges.get(from)?.add(to);
    }
  }
  // Tarjan's strongly connected components.
  let index = 0;
  const indices = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    indices.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!indices.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, indices.get(w) ?? 0));
      }
    }
    if (low.get(v) === indices.get(v)) {
      const component: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!indices.has(v)) visit(v);
  return found;
}

/** Every broken rule, one line each ("module:line: what"). Empty when the graph keeps the rules. */
export function checkDependencies(
  modules: readonly ModuleImports[],
  rules: DependencyRules = RULES,
): string[] {
  const problems: string[] = [];
  for (const m of modules) {
    const folder = folderOf(m.module);
    const inDomain = rules.domain.includes(folder);
    const pure = rules.pure.some((p) => m.module.startsWith(p) || m.module === p);
    const routes = m.module.endsWith('.routes.ts');
    for (const i of m.imports) {
      const where = `src/${m.module}:${i.line}`;
      if (isPackage(i.target)) {
        if (routes && matchesPackage(i.target, rules.queryBuilders)) {
          problems.push(`${where}: a route file imports ${i.target} (queries belong in a store file)`);
        } else if (inDomain && matchesPackage(i.target, rules.webFramework)) {
          problems.push(`${where}: the domain imports the web framework (${i.target})`);
        } else if (pure && matchesPackage(i.target, rules.impurePackages)) {
          problems.push(`${where}: a pure module imports ${i.target}`);
        }
        continue;
      }
      const target = folderOf(i.target);
      if (inDomain && rules.wires.includes(target)) {
        problems.push(`${where}: the domain imports the wire module src/${i.target}`);
      }
      if (inDomain && rules.construction.includes(target)) {
        problems.push(`${where}: the domain imports the app's construction (src/${i.target})`);
      }
      if (target !== folder && rules.interfaces.includes(folder) && rules.interfaces.includes(target)) {
        problems.push(`${where}: the ${folder} interface imports the ${target} interface (src/${i.target})`);
      }
    }
    if (pure) {
      m.lines.forEach((line, n) => {
        if (CLOCK.test(line)) problems.push(`src/${m.module}:${n + 1}: a pure module reads the clock`);
      });
    }
    if (rules.wires.includes(folder)) {
      m.lines.forEach((line, n) => {
        if (QUERY.test(line)) {
          problems.push(
            `src/${m.module}:${n + 1}: an interface module builds a query (queries belong in a store file)`,
          );
        }
      });
    }
  }
  for (const m of modules) {
    const folder = folderOf(m.module);
    if (!rules.domain.includes(folder) || rules.queriesAnywhere.includes(folder)) continue;
    if (m.module.endsWith('.store.ts')) continue;
    m.lines.forEach((line, n) => {
      if (BUILDS_QUERY.test(line)) {
        problems.push(`src/${m.module}:${n + 1}: a domain module outside a store file builds a query`);
      }
    });
  }
  for (const loop of folderLoops(modules)) {
    problems.push(`import loop between folders: ${loop.join(', ')}`);
  }
  for (const loop of moduleLoops(modules)) {
    problems.push(`import loop between modules: ${loop.map((m) => `src/${m}`).join(', ')}`);
  }
  return problems;
}

const IMPORT = /(?:^|\s)(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The imports of one source text; relative ones resolved to paths under src/. */
export function importsOf(module: string, text: string): ModuleImports {
  const lines = text.split('\n');
  const imports: { target: string; line: number }[] = [];
  // Statements may span lines, so the whole text is searched and each match located by offset.
  for (const match of text.matchAll(IMPORT)) {
    const spec = match[1] ?? match[2];
    if (spec === undefined) continue;
    const line = text.slice(0, (match.index ?? 0) + match[0].length).split('\n').length;
    if (spec.startsWith('.')) {
      const resolved = normalize(join(dirname(module), spec))
        .split(sep)
        .join('/');
      imports.push({ target: resolved.replace(/\.js$/, '.ts'), line });
    } else {
      imports.push({ target: spec, line });
    }
  }
  return { module, lines, imports };
}

function sourceFiles(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out = out.concat(sourceFiles(path));
    else if (path.endsWith('.ts') && !path.endsWith('.test.ts')) out.push(path);
  }
  return out;
}

export function readSourceGraph(srcDir: string): ModuleImports[] {
  return sourceFiles(srcDir).map((file) =>
    importsOf(relative(srcDir, file).split(sep).join('/'), readFileSync(file, 'utf8')),
  );
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const modules = readSourceGraph('src');
  const problems = checkDependencies(modules);
  if (problems.length > 0) {
    process.stderr.write(`Dependency rules broken (docs/architecture.md):\n${problems.join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write(
    `check-imports: ${modules.length} modules keep the dependency rules (domain without wire, web framework or the app's construction, pure engine and posting rules, no queries in interfaces, queries of the domain in store files only, no folder or module loops, interfaces apart)\n`,
  );
}
