import { initdbTemplateFile, makeInitdbTemplate } from './initdb-template.js';

/**
 * The build's step that makes the embedded database's empty cluster (initdb-template.ts), run by
 * scripts/build.mjs after the compile:
 *
 *     node dist/store/make-initdb-template.js
 */
const startedMs = Date.now();
await makeInitdbTemplate();
process.stderr.write(
  `build: the embedded database's empty cluster made into ${initdbTemplateFile()} in ${((Date.now() - startedMs) / 1000).toFixed(1)} s\n`,
);
