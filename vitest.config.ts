import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    pool: 'forks',
    // Three test files at a time even on two cores (Vitest's default there is one): most of a file's
    // time is spent waiting on PostgreSQL, a child server or the browser, and each file has a
    // database of its own; with two, a quarter of the cores stood idle (docs/decisions.md, "Tests").
    maxWorkers: Math.max(3, availableParallelism() - 1),
    // One process per worker, kept between files: the app's modules and PGlite's compiled
    // WebAssembly are loaded once per worker, not once per file (docs/decisions.md, "Tests"). A file
    // restores what it changes in the process (spies, timers) and closes what it opens.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    teardownTimeout: 30_000,
    // The unhandled errors, in a few lines each, for `.ci/run` to print last (a CI log is read from its end).
    reporters: ['default', 'json', './test/support/unhandled-errors-reporter.ts'],
    outputFile: { json: '.test-cache/vitest-report.json' },
  },
});
