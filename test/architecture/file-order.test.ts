import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TestSpecification } from 'vitest/node';
import { RECORD_FILE, RecordedOrder } from '../support/file-order.js';

describe('the order the test files start in', () => {
  const root = mkdtempSync(join(tmpdir(), 'punchcard-file-order-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  async function order(
    paths: string[],
    recorded: Record<string, number> | null,
    lastRun: Record<string, { failed: boolean; duration: number }>,
  ): Promise<string[]> {
    const file = join(root, RECORD_FILE);
    rmSync(file, { force: true });
    if (recorded) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, JSON.stringify(recorded));
    }
    const ctx = {
      config: { root },
      cache: { getFileTestResults: (key: string) => lastRun[key.slice(key.indexOf(':') + 1)] },
    };
    const sequencer = new RecordedOrder(ctx as never);
    const specs = paths.map((p) => ({ moduleId: join(root, p), project: { name: '' } }) as TestSpecification);
    const sorted = await sequencer.sort(specs);
    return sorted.map((s) => s.moduleId.slice(root.length + 1));
  }

  it('a fresh clone starts the files longest first by their recorded times, a file not recorded before all', async () => {
    const sorted = await order(
      ['test/a.test.ts', 'test/b.test.ts', 'test/new.test.ts', 'test/c.test.ts'],
      { 'test/a.test.ts': 3.5, 'test/b.test.ts': 60.2, 'test/c.test.ts': 12 },
      {},
    );
    expect(sorted).toEqual(['test/new.test.ts', 'test/b.test.ts', 'test/c.test.ts', 'test/a.test.ts']);
  });

  it("a working tree's last run decides over the record, and a file that failed in it starts first", async () => {
    const sorted = await order(
      ['test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts', 'test/d.test.ts'],
      { 'test/a.test.ts': 3.5, 'test/b.test.ts': 60.2, 'test/c.test.ts': 12, 'test/d.test.ts': 1 },
      {
        'test/a.test.ts': { failed: false, duration: 90_000 },
        'test/d.test.ts': { failed: true, duration: 100 },
      },
    );
    expect(sorted).toEqual(['test/d.test.ts', 'test/a.test.ts', 'test/b.test.ts', 'test/c.test.ts']);
  });

  it('without a record every file is unknown and keeps the order it was given', async () => {
    const paths = ['test/z.test.ts', 'test/a.test.ts', 'test/m.test.ts'];
    expect(await order(paths, null, {})).toEqual(paths);
  });

  it('a record that is not JSON stops the run, naming the file', async () => {
    const file = join(root, RECORD_FILE);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, '{ "test/a.test.ts": 3.5,\n<<<<<<< HEAD\n');
    const ctx = { config: { root }, cache: { getFileTestResults: () => undefined } };
    const specs = [{ moduleId: join(root, 'test/a.test.ts'), project: { name: '' } } as TestSpecification];
    await expect(new RecordedOrder(ctx as never).sort(specs)).rejects.toThrow(RECORD_FILE);
  });
});
