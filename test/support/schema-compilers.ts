import { fileURLToPath } from 'node:url';
import { loadPrecompiledSchemas } from '../../src/wire/precompiled-schemas.js';
import { type CompilersFactory, schemaCompilers } from '../../src/wire/schema-compilers.js';

/** The build's precompiled schema functions: the run's global setup builds dist/ first. */
export const DIST_PRECOMPILED = fileURLToPath(new URL('../../dist/compiled-schemas.cjs', import.meta.url));

/**
 * The compilers every test app of this process builds its routes with (test/support/harness.ts):
 * the service's own (src/wire/schema-compilers.ts) with the build's precompiled functions, as a
 * started service has them, and one memory of what was compiled for all the process's apps.
 */
export const sharedCompilers: CompilersFactory = schemaCompilers({
  precompiled: loadPrecompiledSchemas(DIST_PRECOMPILED),
});
