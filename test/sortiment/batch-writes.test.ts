import { describe, expect, it } from 'vitest';
import { BatchWrites } from '../../src/sortiment/batch-writes.js';
import { copyField, copyJsonField } from '../../src/store/copy-in.js';

/** A promise and the means to settle it from outside. */
function gate(): { promise: Promise<void>; open: () => void; fail: (err: Error) => void } {
  let open = (): void => undefined;
  let fail = (_err: Error): void => undefined;
  const promise = new Promise<void>((resolve, reject) => {
    open = resolve;
    fail = reject;
  });
  return { promise, open, fail };
}

/**
 * A bulk upload writes each batch while it reads the next (docs/decisions.md, "Sortiment"): the
 * batches are written in order, one at a time, each with its own texts; a failed write stops
 * the upload; and nothing is still writing once the upload gives up.
 */
describe('the batches of a bulk upload, written one behind the reading', () => {
  it('reading goes on while a batch is written; the next batch waits for it; every text is its own', async () => {
    const gates = [gate(), gate()];
    const seen: string[][] = [];
    const writes = new BatchWrites<{ plu: string; at: number; bytes: number }>(2, async (rows, texts) => {
      const n = seen.length;
      seen.push(rows.map((r) => `${r.plu}=${texts.text(r)}`));
      await gates[n]?.promise;
    });
    await writes.add('{"a":1}', (p) => ({ plu: '1', ...p }));
    await writes.add('{"b":2}', (p) => ({ plu: '2', ...p }));
    // The first batch is being written: the third article is still taken at once.
    await writes.add('{"c":3}', (p) => ({ plu: '3', ...p }));
    let fourthTaken = false;
    const fourth = writes
      .add('{"d":4}', (p) => ({ plu: '4', ...p }))
      .then(() => {
        fourthTaken = true;
      });
    await new Promise((r) => setTimeout(r, 10));
    expect(fourthTaken).toBe(false);
    expect(seen).toEqual([['1={"a":1}', '2={"b":2}']]);
    gates[0]?.open();
    await fourth;
    gates[1]?.open();
    await writes.add('{"e":5}', (p) => ({ plu: '5', ...p }));
    await writes.finish();
    expect(seen).toEqual([['1={"a":1}', '2={"b":2}'], ['3={"c":3}', '4={"d":4}'], ['5={"e":5}']]);
  });

  it('a failed write is thrown at the next hand-over, and settle waits for the write under way', async () => {
    const first = gate();
    let writing = 0;
    const writes = new BatchWrites<{ at: number; bytes: number }>(1, async () => {
      writing += 1;
      await first.promise;
      writing -= 1;
    });
    await writes.add('x', (p) => p);
    expect(writing).toBe(1);
    first.fail(new Error('the turn was taken over'));
    await expect(writes.add('y', (p) => p)).rejects.toThrow('the turn was taken over');
    const slow = gate();
    const other = new BatchWrites<{ at: number; bytes: number }>(1, () => slow.promise);
    await other.add('z', (p) => p);
    let settled = false;
    const done = other.settle().then(() => {
      settled = true;
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(settled).toBe(false);
    slow.fail(new Error('gone'));
    await done;
    expect(settled).toBe(true);
  });
});

describe("COPY's text format", () => {
  it('escapes backslash, tab and line ends, and writes null as \\N', () => {
    expect(copyField('{"a":"x\\"y"}')).toBe('{"a":"x\\\\"y"}');
    expect(copyField('a\tb\nc\rd')).toBe('a\\tb\\nc\\rd');
    expect(copyField(null)).toBe('\\N');
    expect(copyField('PLU-1')).toBe('PLU-1');
  });

  it('a text written by JSON.stringify is escaped as copyField escapes it, control characters included', () => {
    const every = Array.from({ length: 0x80 }, (_, c) => String.fromCharCode(c)).join('');
    for (const value of [
      { a: every },
      { b: 'x\\"y\\\\z' },
      ['\t', '\n', '\r', '\\n'],
      { plain: 'Käse 🥨' },
    ]) {
      const json = JSON.stringify(value);
      expect(copyJsonField(json)).toBe(copyField(json));
    }
    expect(copyJsonField('{"a":"x\\\\y"}')).toBe('{"a":"x\\\\\\\\y"}');
  });
});
