import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import type { Reporter, SerializedError } from 'vitest/node';

/** Where the run's unhandled errors are written, for `.ci/run`'s closing lines. */
export const UNHANDLED_ERRORS_FILE = '.test-cache/unhandled-errors.txt';

/** The lines of the stack that name a place, at most `count`. */
function placesOf(error: SerializedError, count: number): string[] {
  return (error.stack ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.startsWith('at '))
    .slice(0, count);
}

/** One error as a few lines: its name, message, the test file Vitest tied it to, and where it was thrown. */
function describeUnhandled(error: SerializedError): string {
  const head = `${error.name ?? 'Error'}: ${String(error.message ?? '').split('\n')[0] ?? ''}`;
  const file =
    typeof error.VITEST_TEST_PATH === 'string'
      ? `  during ${relative(process.cwd(), error.VITEST_TEST_PATH)}`
      : null;
  const test = typeof error.VITEST_TEST_NAME === 'string' ? `  last test "${error.VITEST_TEST_NAME}"` : null;
  const places = placesOf(error, 6).map((line) => `    ${line}`);
  return [head, ...(file ? [file] : []), ...(test ? [test] : []), ...places].join('\n');
}

/**
 * A run with an unhandled error fails though every test passed, and Vitest prints the error above
 * its summary, where a CI log cut to its last lines does not reach. This reporter writes each one
 * in a few lines to UNHANDLED_ERRORS_FILE (removed when there are none), which `.ci/run` prints
 * after the closing count.
 */
export default class UnhandledErrorsReporter implements Reporter {
  onTestRunEnd(_modules: unknown, unhandledErrors: readonly SerializedError[]): void {
    if (unhandledErrors.length === 0) {
      rmSync(UNHANDLED_ERRORS_FILE, { force: true });
      return;
    }
    mkdirSync(dirname(UNHANDLED_ERRORS_FILE), { recursive: true });
    writeFileSync(UNHANDLED_ERRORS_FILE, `${unhandledErrors.map(describeUnhandled).join('\n')}\n`);
  }
}
