/** awaitWhileTimeLeft: a caller that must answer within its function's timeout stops waiting, the work goes on. */
import { describe, expect, it } from 'vitest';
import { awaitWhileTimeLeft } from '../../functions/adapters/time-left.js';

const contextWith = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs });

describe('awaitWhileTimeLeft', () => {
  it('work done in time: true', async () => {
    expect(await awaitWhileTimeLeft(Promise.resolve(), contextWith(60_000), 2_000)).toBe(true);
  });

  it('work that would outlast the time left (less the margin): false at once, and the work still ends', async () => {
    let finish = () => {};
    let finished = false;
    const work = new Promise<void>((resolve) => (finish = resolve)).then(() => {
      finished = true;
    });
    // 1.5 s left, 2 s kept for the answer: no time to wait at all.
    expect(await awaitWhileTimeLeft(work, contextWith(1_500), 2_000)).toBe(false);
    finish();
    await work;
    expect(finished).toBe(true);
  });

  it('work that fails is the caller’s to report: the rejection passes through', async () => {
    await expect(awaitWhileTimeLeft(Promise.reject(new Error('busy')), contextWith(60_000), 2_000)).rejects.toThrow(
      'busy',
    );
  });
});
