import { existsSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { CODE_ROOT } from '../shared/code-root.js';
import type { PrecompiledSchemas } from './schema-compilers.js';

/**
 * The build's precompiled schema functions (docs/decisions.md, "Schema compilers"): one CommonJS
 * file beside the compiled service, `dist/compiled-schemas.cjs`, made by src/compile-schemas.ts
 * after the TypeScript compile. Each entry is a standalone module body (what Ajv's and
 * fast-json-stringify's standalone modes print), wrapped in a function and run only when its digest
 * is asked for, so a start evaluates only the functions its routes use.
 */

/** Where the build puts the file: at the compiled code's root (`dist/compiled-schemas.cjs`). */
export const PRECOMPILED_FILE = join(CODE_ROOT, 'compiled-schemas.cjs');

type Entry = (module: { exports: unknown }, exports: unknown) => void;

/** The functions of a precompiled file, or null when there is none (the sources run through tsx). */
export function loadPrecompiledSchemas(file: string = PRECOMPILED_FILE): PrecompiledSchemas | null {
  if (!existsSync(file)) return null;
  const entries = createRequire(import.meta.url)(file) as Record<string, Entry | undefined>;
  const made = new Map<string, unknown>();
  return {
    get(digest) {
      if (made.has(digest)) return made.get(digest);
      const entry = Object.hasOwn(entries, digest) ? entries[digest] : undefined;
      if (entry === undefined) return undefined;
      const module = { exports: {} as unknown };
      entry(module, module.exports);
      made.set(digest, module.exports);
      return module.exports;
    },
  };
}

/**
 * Writes the precompiled file from the standalone sources by digest. Written to a temporary name
 * and renamed, so a reader never sees half a file.
 */
export function writePrecompiledSchemas(
  sources: ReadonlyMap<string, string>,
  file: string = PRECOMPILED_FILE,
): void {
  const parts = [
    "'use strict';\n",
    "// Made by the build (src/compile-schemas.ts): the service's schema functions by digest.\n",
  ];
  for (const [digest, source] of [...sources].sort(([a], [b]) => a.localeCompare(b))) {
    if (!/^[0-9a-f]{64}$/.test(digest)) throw new Error(`not a digest: ${digest}`);
    parts.push(`exports['${digest}'] = function (module, exports) {\n${source}\n};\n`);
  }
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, parts.join(''));
  renameSync(temporary, file);
}
