import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/shared/group-commit.js';

/** A write whose batches are held until the test lets them go, one at a time. */
function heldWrites() {
  const batches: number[][] = [];
  const releases: (() => void)[] = [];
  const execute = async (items: readonly number[]) => {
    batches.push([...items]);
    await new Promise<void>((resolve) => releases.push(resolve));
    return items.map((i) => i * 10);
  };
  const releaseNext = async () => {
    const release = releases.shift();
    if (release === undefined) throw new Error('no batch is being written');
    release();
    await turn();
    await turn();
  };
  return { batches, releases, execute, releaseNext };
}

describe('group commit', () => {
  it('writes the items of one turn in one batch and answers each its own outcome', async () => {
    const w = heldWrites();
    const group = new GroupCommit({ concurrency: 4, maxBatch: 32 }, w.execute);
    const answers = [1, 2, 3].map((i) => group.submit(i));
    await turn();
    expect(w.batches).toEqual([[1, 2, 3]]);
    await w.releaseNext();
    expect(await Promise.all(answers)).toEqual([10, 20, 30]);
  });

  it('uses every free slot at once by default', async () => {
    const w = heldWrites();
    const group = new GroupCommit({ concurrency: 2, maxBatch: 32 }, w.execute);
    const first = group.submit(1);
    await turn();
    const second = group.submit(2);
    await turn();
    // The second item went in a batch of its own while the first was still being written.
    expect(w.batches).toEqual([[1], [2]]);
    await w.releaseNext();
    await w.releaseNext();
    expect(await Promise.all([first, second])).toEqual([10, 20]);
  });

  it('with openAt, writes one batch at a time while the items waiting fit in one', async () => {
    const w = heldWrites();
    const group = new GroupCommit({ concurrency: 2, maxBatch: 3, openAt: 3 }, w.execute);
    const answers = [group.submit(1)];
    await turn();
    answers.push(group.submit(2), group.submit(3));
    await turn();
    expect(w.batches).toEqual([[1]]);
    // The items that waited go together once the batch before them is written.
    await w.releaseNext();
    expect(w.batches).toEqual([[1], [2, 3]]);
    await w.releaseNext();
    expect(await Promise.all(answers)).toEqual([10, 20, 30]);
  });

  it('with openAt, starts a further batch once a full batch waits', async () => {
    const w = heldWrites();
    const group = new GroupCommit({ concurrency: 2, maxBatch: 3, openAt: 3 }, w.execute);
    const answers = [group.submit(1)];
    await turn();
    answers.push(group.submit(2), group.submit(3), group.submit(4));
    await turn();
    // The first batch is still being written (held up, say, by a lock): a second goes beside it.
    expect(w.batches).toEqual([[1], [2, 3, 4]]);
    // No third batch: both slots are busy, so the next items wait whatever their number.
    answers.push(group.submit(5), group.submit(6), group.submit(7), group.submit(8));
    await turn();
    expect(w.batches).toHaveLength(2);
    await w.releaseNext();
    expect(w.batches[2]).toEqual([5, 6, 7]);
    await w.releaseNext();
    expect(w.batches[3]).toEqual([8]);
    await w.releaseNext();
    await w.releaseNext();
    expect(await Promise.all(answers)).toEqual([10, 20, 30, 40, 50, 60, 70, 80]);
  });
});
