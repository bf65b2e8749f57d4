import { existsSync, readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds each test file took in a recorded whole run, by its path from the repository's root. */
export const RECORD_FILE = 'test/support/file-times.json';

export type FileTimes = Record<string, number>;

/** The recorded times; none without the file. A file that is not JSON (a merge left half done) stops the run. */
function recorded(root: string): FileTimes {
  const path = resolve(root, RECORD_FILE);
  if (!existsSync(path)) return {};
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as FileTimes;
  } catch (err) {
    throw new Error(
      `${RECORD_FILE} is not JSON (${(err as Error).message}); write it again with npm run test:file-times`,
    );
  }
}

/**
 * The test files in the order they start: the longest first, so that the last minutes of a run are
 * not one long file on one worker while the others stand idle (docs/decisions.md, "Tests": "Files
 * in order of their recorded times"). A file's time is its last run's in Vitest's own results
 * (a working tree that has run the tests; a file that failed there starts before all others), else
 * the time recorded in `test/support/file-times.json` (a fresh clone, CI); a file in neither (a new
 * one) starts first, as Vitest starts the files it does not know.
 */
export class RecordedOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const times = recorded(root);
    const expected = (spec: TestSpecification): { failed: boolean; ms: number } => {
      const path = relative(root, spec.moduleId);
      const last = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`);
      if (last) return { failed: last.failed, ms: last.duration };
      const seconds = times[path];
      return { failed: false, ms: seconds === undefined ? Number.POSITIVE_INFINITY : seconds * 1000 };
    };
    const keyed = files.map((spec) => ({ spec, ...expected(spec) }));
    keyed.sort((a, b) => {
      if (a.failed !== b.failed) return a.failed ? -1 : 1;
      if (a.ms === b.ms) return 0;
      return b.ms > a.ms ? 1 : -1;
    });
    return keyed.map((k) => k.spec);
  }
}
