/** awaitWhileTimeLeft: a caller that must answer within its function's timeout stops waiting, the work goes on. */
import { describe, expect, it } from 'vitest';
import { awaitWhileTimeLeft } from '../../functions/adapters/runtime/time-left.js';

const contextWith = (remainingMs: number) => ({ getRemainingTimeInMillis: () => remainingMs });

describe('awaitWhileTimeLeft', () => {
  it('work done in time: true', async () => {
    expect(await awaitWhileTimeLeft(Promise.resolve(), contextWith(60_000), 2_000)).toBe(true);
  });

  it('no time left beyond the margin: false at once, without waiting for the work', async () => {
    const never = new Promise<void>(() => {});
    // 1.5 s left, 2 s kept for the answer.
    expect(await awaitWhileTimeLeft(never, contextWith(1_500), 2_000)).toBe(false);
  });

  it('work that outlasts the time left (50 ms beyond the margin): false once that time is up', async () => {
    const never = new Promise<void>(() => {});
    expect(await awaitWhileTimeLeft(never, contextWith(2_050), 2_000)).toBe(false);
  });

  it('work that fails is the caller’s to report: the rejection passes through', async () => {
    await expect(awaitWhileTimeLeft(Promise.reject(new Error('busy')), contextWith(60_000), 2_000)).rejects.toThrow(
      'busy',
    );
  });
});
