/**
 * Records each test file's time from the last whole `npm test` run (Vitest's JSON report,
 * `.test-cache/vitest-report.json`) into `test/support/file-times.json`, which orders the files of a
 * run that has no results of its own, a fresh clone's or CI's (test/support/file-order.ts;
 * docs/decisions.md, "Tests": "Files in order of their recorded times").
 *
 *   npm test && npm run test:file-times
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { type FileTimes, RECORD_FILE } from '../test/support/file-order.js';

const REPORT = '.test-cache/vitest-report.json';

interface Report {
  testResults: { name: string; startTime: number; endTime: number; status: string }[];
}

const root = process.cwd();
const report = JSON.parse(readFileSync(resolve(root, REPORT), 'utf8')) as Report;
const failed = report.testResults.filter((f) => f.status !== 'passed');
if (failed.length > 0) {
  console.error(`${REPORT}: ${failed.length} files did not pass; record the times of a passing run`);
  process.exit(1);
}
const times: FileTimes = {};
for (const f of [...report.testResults].sort((a, b) => (a.name < b.name ? -1 : 1))) {
  times[relative(root, f.name)] = Math.round((f.endTime - f.startTime) / 100) / 10;
}
// A run of some files only would drop the others' times: every file recorded before that still
// exists must be in the report.
const recordPath = resolve(root, RECORD_FILE);
const before = existsSync(recordPath) ? (JSON.parse(readFileSync(recordPath, 'utf8')) as FileTimes) : {};
const missing = Object.keys(before).filter((path) => existsSync(resolve(root, path)) && !(path in times));
if (missing.length > 0) {
  console.error(
    `${REPORT} lacks ${missing.length} test files (${missing[0]}, ...); record the times of a whole run`,
  );
  process.exit(1);
}
const count = Object.keys(times).length;
writeFileSync(recordPath, `${JSON.stringify(times, null, 2)}\n`);
console.log(
  `${RECORD_FILE}: ${count} files, ${Math.round(Object.values(times).reduce((s, t) => s + t, 0))} s in all`,
);
