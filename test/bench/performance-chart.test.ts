import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it, onTestFinished } from 'vitest';

const run = promisify(execFile);
const TSX = join('node_modules', '.bin', 'tsx');

/** A directory of the test's own for the chart it draws, removed when the test ends. */
function chartDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'chart-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

// docs/performance.md: the rows' figures machine by machine are kept in
// docs/performance-history.csv and drawn by `npm run docs:performance-chart`.
describe("the chart of the benchmark rows' history", () => {
  it('every line of docs/performance-history.csv is a figure of a known row, and the chart is drawn from it', async () => {
    const dir = chartDir();
    const png = join(dir, 'history.png');
    const { stdout } = await run(TSX, ['scripts/performance-chart.ts', 'docs/performance-history.csv', png]);
    const lines = readFileSync('docs/performance-history.csv', 'utf8').trim().split('\n').length - 1;
    expect(stdout).toContain(`docs/performance-history.csv: ${lines} figures of 10 rows`);
    expect(stdout).toContain(`wrote ${png}`);
    // A PNG as wide as the page it was drawn in: two panels of 600 pixels, the gaps, the margin.
    const bytes = readFileSync(png);
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    expect(bytes.readUInt32BE(16)).toBe(1240);
    expect(statSync(png).size).toBeGreaterThan(20_000);
  });

  it('a line that is not a figure stops it, naming the line, and draws nothing', async () => {
    const dir = chartDir();
    const csv = join(dir, 'figures.csv');
    const png = join(dir, 'history.png');
    writeFileSync(
      csv,
      'row,at_utc,machine,figure,kind\norders_one,2026-12-06T06:00Z,43,0.55,run\norders_one,2026-12-06T06:05Z,43,0,59,run\n',
    );
    const failed = await run(TSX, ['scripts/performance-chart.ts', csv, png]).catch(
      (e: { stderr: string }) => e,
    );
    expect('stderr' in failed ? failed.stderr : '').toContain(
      `${csv}:3: not a figure: "orders_one,2026-12-06T06:05Z,43,0,59,run"`,
    );
    expect(() => statSync(png)).toThrow();
  });
});
