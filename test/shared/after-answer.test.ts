import { describe, expect, it } from 'vitest';
import { AfterAnswer } from '../../src/shared/after-answer.js';

/** Work started after a request's answer (the consumer portal's sign-in links), and the close that waits for it. */
describe('work after the answer', () => {
  it('does not run before the caller goes on, and the close waits for it and for what it starts', async () => {
    const tasks = new AfterAnswer();
    const done: string[] = [];
    let release = () => {};
    await tasks.run(async () => {
      await new Promise<void>((resolve) => (release = resolve));
      done.push('first');
      await tasks.run(async () => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        done.push('started by the first');
      }, String);
    }, String);
    // The answer goes out before the task has begun.
    expect(tasks.running).toBe(1);
    expect(done).toEqual([]);
    const settled = tasks.settled().then(() => done.push('settled'));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(done).toEqual([]);
    release();
    await settled;
    expect(done).toEqual(['first', 'started by the first', 'settled']);
    expect(tasks.running).toBe(0);
  });

  it('hands a failure to its report, and one whose report fails as well ends quietly: nothing escapes as an unhandled rejection', async () => {
    const tasks = new AfterAnswer();
    const reported: unknown[] = [];
    await tasks.run(
      () => Promise.reject(new Error('database gone')),
      (err) => reported.push(err),
    );
    await tasks.run(
      () => Promise.reject(new Error('again')),
      () => {
        throw new Error('the log failed too');
      },
    );
    await tasks.settled();
    expect(reported.map((e) => (e as Error).message)).toEqual(['database gone']);
    expect(tasks.running).toBe(0);
  });

  it('a close waits for the work within its grace, and past it cuts off the sends the work waits on, then waits for the work to end', async () => {
    const tasks = new AfterAnswer(30);
    const ended: string[] = [];
    await tasks.run(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      ended.push('written');
    }, String);
    expect(await tasks.close()).toBe(false);
    expect(ended).toEqual(['written']);

    const hung = new AfterAnswer(30);
    await hung.run(async (stop) => {
      // A send to a mail server that never answers, ended only by its stop signal.
      await new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve()));
      ended.push(`cut off: ${String(stop.aborted)}`);
    }, String);
    expect(await hung.close()).toBe(true);
    expect(ended).toEqual(['written', 'cut off: true']);
    expect(hung.running).toBe(0);
  });

  it('at most so many run at once: one more is started, and its caller answered, only when one of them has ended', async () => {
    const tasks = new AfterAnswer(5_000, 2);
    const releases: (() => void)[] = [];
    const blocked = () => new Promise<void>((resolve) => releases.push(resolve));
    await tasks.run(blocked, String);
    await tasks.run(blocked, String);
    let third = false;
    const started = tasks.run(async () => {}, String).then(() => (third = true));
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(third).toBe(false);
    expect(tasks.running).toBe(2);
    releases.shift()?.();
    await started;
    expect(third).toBe(true);
    releases.shift()?.();
    await tasks.settled();
    expect(tasks.running).toBe(0);
  });
});
