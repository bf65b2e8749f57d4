import { existsSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Where the running code lies, whichever way it runs: its sources through tsx (`src/`), the
 * compiled modules one file each (`dist/<module>/...`), or the server bundled into one file
 * (`dist/server.js`, scripts/build.mjs). Files that go with the code (the stored functions, the
 * precompiled schemas, the embedded database's set-up child) are found from here, never from a
 * module's own place, which the bundle changes.
 */

/** The package's directory: the nearest one above this code holding package.json. */
function packageRootOf(file: string): string {
  let dir = dirname(file);
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${file}`);
    dir = up;
  }
  return dir;
}

const here = fileURLToPath(import.meta.url);

/** The package's own directory (package.json, portal-assets/, dist/). */
export const PACKAGE_ROOT = packageRootOf(here);

/** The code's root: `src/` or `dist/`, the package's directory the running code is in. */
export const CODE_ROOT = join(PACKAGE_ROOT, relative(PACKAGE_ROOT, here).split(sep)[0] ?? '');

/** `.ts` when the code runs from its sources, `.js` when built: the extension of a module's file. */
export const CODE_EXTENSION = here.endsWith('.ts') ? '.ts' : '.js';
