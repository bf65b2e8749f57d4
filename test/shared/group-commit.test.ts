import { setImmediate as turn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { GroupCommit, type GroupCommitOptions, type WriteWay } from '../../src/shared/group-commit.js';

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

/** The error PostgreSQL answers a statement that waited for a row lock past its lock_timeout. */
const lockNotAvailable = () =>
  Object.assign(new Error('canceling statement due to lock timeout'), { code: '55P03' });

/** Lets the event loop go round `n` times (immediates and the promises they settle). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await turn();
}

/** A group commit whose every write is recorded (its way and first item) before `write` decides it. */
function recordedGroup(
  options: GroupCommitOptions,
  write: (items: readonly number[], way: WriteWay) => Promise<number[]>,
) {
  const ways: [WriteWay, number][] = [];
  const group = new GroupCommit(options, async (items: readonly number[], way) => {
    ways.push([way, items[0] ?? 0]);
    return write(items, way);
  });
  return { group, ways };
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

  it('a batch that found a row locked for longer than it may wait has its items written alone: those that do not need the row are answered at once, the one that does waits, and the batches behind go on meanwhile', async () => {
    const written: [WriteWay, number[]][] = [];
    let release: () => void = () => {};
    const released = new Promise<void>((r) => (release = r));
    // Item 7's row is locked by another session: a batch, or an item alone, gives up on it at
    // once; written the waiting way it waits until the lock goes, or fails past its own limit.
    const execute = async (items: readonly number[], way: WriteWay) => {
      written.push([way, [...items]]);
      if (items.includes(7)) {
        if (way !== 'waiting') throw lockNotAvailable();
        await released;
      }
      return items.map((i) => i * 10);
    };
    const group = new GroupCommit({ concurrency: 1, maxBatch: 32 }, execute);
    const first = [group.submit(6), group.submit(7)];
    await turn();
    const behind = [group.submit(8), group.submit(9)];
    // The one slot is free again while item 7 waits: the items behind are written and answered.
    expect(await Promise.all([first[0], ...behind])).toEqual([60, 80, 90]);
    release();
    expect(await first[1]).toBe(70);
    expect(written).toEqual([
      ['batch', [6, 7]],
      ['alone', [6]],
      ['alone', [7]],
      ['waiting', [7]],
      ['batch', [8, 9]],
    ]);
  });

  it('while an item waits for a row held locked, a further item that finds a row held is set aside without a connection and written again the usual way once the wait got its row', async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((r) => (release = r));
    let held = true;
    const { group, ways } = recordedGroup({ concurrency: 2, maxBatch: 32 }, async (items, way) => {
      if (held && way !== 'waiting') throw lockNotAvailable();
      await released;
      return items.map((i) => i * 10);
    });
    const first = group.submit(1);
    await turns(2);
    const second = group.submit(2);
    await turns(2);
    // The second is neither refused nor written beside the first while the first waits.
    expect(ways).toEqual([
      ['batch', 1],
      ['waiting', 1],
      ['batch', 2],
    ]);
    held = false;
    release();
    expect(await Promise.all([first, second])).toEqual([10, 20]);
    expect(ways.slice(3)).toEqual([['batch', 2]]);
  });

  it('an item set aside behind a wait that ran out, held up by another row held briefly, is written once more the usual way and answered', async () => {
    let giveUp: () => void = () => {};
    // Item 1 needs a row held for long; item 2 another row, held only until the wait of 1 ends.
    let otherHeld = true;
    const { group, ways } = recordedGroup({ concurrency: 4, maxBatch: 1 }, async (items, way) => {
      if (items[0] === 1) {
        if (way === 'waiting') await new Promise<void>((r) => (giveUp = r));
        throw lockNotAvailable();
      }
      if (otherHeld) throw lockNotAvailable();
      return items.map((i) => i * 10);
    });
    const first = group.submit(1);
    await turns(2);
    const second = group.submit(2);
    await turns(2);
    expect(ways).toEqual([
      ['batch', 1],
      ['waiting', 1],
      ['batch', 2],
    ]);
    otherHeld = false;
    giveUp();
    await expect(first).rejects.toMatchObject({ code: '55P03' });
    expect(await second).toBe(20);
    expect(ways.slice(3)).toEqual([['batch', 2]]);
  });

  it('items set aside behind a wait that ran out (a row held for long) are written once more the usual way and fail with their lock error when they find a row held again, without a wait of their own; an item set aside too often fails so at once', async () => {
    let giveUp: () => void = () => {};
    const { group, ways } = recordedGroup({ concurrency: 4, maxBatch: 32 }, async (_items, way) => {
      if (way === 'waiting') await new Promise<void>((r) => (giveUp = r));
      throw lockNotAvailable();
    });
    const first = group.submit(1);
    await turns(2);
    const behind = [group.submit(2), group.submit(3)];
    await turns(2);
    expect(ways).toEqual([
      ['batch', 1],
      ['waiting', 1],
      ['batch', 2],
      ['alone', 2],
      ['alone', 3],
    ]);
    giveUp();
    for (const answer of [first, ...behind]) await expect(answer).rejects.toMatchObject({ code: '55P03' });
    expect(ways.slice(5)).toEqual([
      ['batch', 2],
      ['alone', 2],
      ['alone', 3],
    ]);

    // A row that many take in turn: each wait gets its row, yet one item (9, slow to find its row
    // held, so that another always takes the wait before it) keeps finding it held.
    const unluckyWays: WriteWay[] = [];
    const gates: (() => void)[] = [];
    const busy = new GroupCommit({ concurrency: 4, maxBatch: 1 }, async (items: readonly number[], way) => {
      if (items[0] === 9) {
        unluckyWays.push(way);
        for (let i = 0; i < 5; i += 1) await turn();
        throw lockNotAvailable();
      }
      if (way !== 'waiting') throw lockNotAvailable();
      await new Promise<void>((r) => gates.push(r));
      return items.map((i) => i * 10);
    });
    const others = [busy.submit(0)];
    await turns(12);
    let unluckyAnswer: unknown = 'none yet';
    busy.submit(9).catch((err: unknown) => (unluckyAnswer = err));
    await turns(12);
    for (let round = 1; round <= 3; round += 1) {
      expect(unluckyAnswer).toBe('none yet');
      others.push(busy.submit(round));
      gates.shift()?.();
      await turns(12);
    }
    // Set aside three times, it found the row held a fourth time: refused at once.
    expect(unluckyAnswer).toMatchObject({ code: '55P03' });
    expect(unluckyWays).toEqual(['batch', 'batch', 'batch', 'batch']);
    gates.shift()?.();
    expect(await Promise.all(others)).toEqual([0, 10, 20, 30]);
  });

  it("a batch past the statement's limit has its items written alone side by side: those that need nothing held are answered without waiting behind the one that does, which answers the limit", async () => {
    const timedOut = () =>
      Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' });
    const calls: { items: number[]; way: WriteWay }[] = [];
    let releaseHeld = () => {};
    const group = new GroupCommit({ concurrency: 1, maxBatch: 32 }, async (items: readonly number[], way) => {
      calls.push({ items: [...items], way });
      if (way === 'batch') throw timedOut();
      // Item 2 needs the row another session holds: alone, it meets the limit once more.
      if (items[0] === 2) {
        await new Promise<void>((resolve) => (releaseHeld = resolve));
        throw timedOut();
      }
      return items.map((i) => i * 10);
    });
    const answers = [1, 2, 3].map((i) => group.submit(i).catch((err: { code?: string }) => err.code));
    // Items 1 and 3 are answered while item 2 is still held.
    expect(await answers[0]).toBe(10);
    expect(await answers[2]).toBe(30);
    releaseHeld();
    expect(await answers[1]).toBe('57014');
    expect(calls).toEqual([
      { items: [1, 2, 3], way: 'batch' },
      { items: [1], way: 'alone' },
      { items: [2], way: 'alone' },
      { items: [3], way: 'alone' },
    ]);
  });

  it('an item that waited past its own limit fails with that error', async () => {
    const lockedOut = lockNotAvailable();
    const ways: WriteWay[] = [];
    const group = new GroupCommit(
      { concurrency: 1, maxBatch: 32 },
      async (_items: readonly number[], way) => {
        ways.push(way);
        throw lockedOut;
      },
    );
    await expect(group.submit(1)).rejects.toBe(lockedOut);
    expect(ways).toEqual(['batch', 'waiting']);
  });

  it('an item that waited and then failed on what the other session wrote is written once more the usual way', async () => {
    const ways: WriteWay[] = [];
    const group = new GroupCommit({ concurrency: 1, maxBatch: 32 }, async (items: readonly number[], way) => {
      ways.push(way);
      if (ways.length === 1) throw lockNotAvailable();
      if (ways.length === 2) throw Object.assign(new Error('duplicate key value'), { code: '23505' });
      return items.map((i) => i * 10);
    });
    expect(await group.submit(1)).toBe(10);
    expect(ways).toEqual(['batch', 'waiting', 'batch']);
  });

  it('a batch broken as a whole has its items written again one by one, so that a broken connection fails none of them', async () => {
    const broken = () => Object.assign(new Error('terminating connection'), { code: '57P01' });
    const { group, ways } = recordedGroup({ concurrency: 1, maxBatch: 32 }, async (items, way) => {
      if (way === 'batch' && items.length > 1) throw broken();
      return items.map((i) => i * 10);
    });
    expect(await Promise.all([1, 2, 3].map((i) => group.submit(i)))).toEqual([10, 20, 30]);
    expect(ways).toEqual([
      ['batch', 1],
      ['batch', 1],
      ['batch', 2],
      ['batch', 3],
    ]);
  });

  it('once an item of a broken batch finds the database unreachable as well, the items after it are answered so at once, unwritten, instead of each waiting for a connection as long again', async () => {
    const broken = () => Object.assign(new Error('terminating connection'), { code: '57P01' });
    const unreachable = () => Object.assign(new Error('No connection to the database'), { code: '08001' });
    const { group, ways } = recordedGroup({ concurrency: 1, maxBatch: 32 }, async (items, way) => {
      if (way === 'batch' && items.length > 1) throw broken();
      // Item 1 is written; the database is gone before item 2.
      if (items[0] === 1) return [10];
      throw unreachable();
    });
    const answers = [1, 2, 3, 4].map((i) => group.submit(i).catch((err: { code?: string }) => err.code));
    expect(await Promise.all(answers)).toEqual([10, '08001', '08001', '08001']);
    expect(ways).toEqual([
      ['batch', 1],
      ['batch', 1],
      ['batch', 2],
    ]);
  });

  it.each([
    [
      'no connection opened within its limit',
      () =>
        Object.assign(new Error('No connection to the database could be opened (timeout expired).'), {
          code: '08001',
        }),
    ],
    ['its statement not answered within its limit', () => new Error('Query read timeout')],
  ])(
    'a batch that found the database silent (%s) is answered so at once, with the items queued behind it, none written again',
    async (_what, silence) => {
      let fail!: () => void;
      let calls = 0;
      const { group, ways } = recordedGroup({ concurrency: 1, maxBatch: 32 }, async (items, way) => {
        // The first batch waits until the test says its limit ran out.
        if (calls++ === 0) await new Promise<void>((resolve) => (fail = resolve));
        if (items[0] === 1 || way !== 'batch') throw silence();
        return items.map((i) => i * 10);
      });
      const silent = silence().message;
      const answer = (i: number) => group.submit(i).catch((err: Error) => err.message);
      const first = [1, 2, 3].map(answer);
      await turn();
      // Queued behind it while it waits.
      const behind = [4, 5].map(answer);
      await turn();
      fail();
      expect(await Promise.all([...first, ...behind])).toEqual([silent, silent, silent, silent, silent]);
      expect(ways).toEqual([['batch', 1]]);
      // The next item tries a connection of its own.
      expect(await group.submit(6)).toBe(60);
      expect(ways).toEqual([
        ['batch', 1],
        ['batch', 6],
      ]);
    },
  );

  it('an item written alone that found the database silent is answered so, not written again the usual way', async () => {
    const lockedOut = () => Object.assign(new Error('lock not available'), { code: '55P03' });
    const notOpened = () => new Error('timeout exceeded when trying to connect');
    const { group, ways } = recordedGroup({ concurrency: 1, maxBatch: 32 }, async (items, way) => {
      if (way === 'batch') throw lockedOut();
      throw notOpened();
    });
    const answers = [1, 2].map((i) => group.submit(i).catch((err: Error) => err.message));
    expect(await Promise.all(answers)).toEqual([
      'timeout exceeded when trying to connect',
      'timeout exceeded when trying to connect',
    ]);
    expect(ways).toEqual([
      ['batch', 1],
      ['alone', 1],
      ['alone', 2],
    ]);
  });
});
