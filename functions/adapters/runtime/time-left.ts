/** Bounding work by the Lambda function's own time: a caller that must answer stops waiting, the work goes on. */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'aws-lambda';

/**
 * Waits for `work` until `marginMs` before the function's timeout: true when it finished in time. Work left
 * then goes on (in AWS it is frozen with the function, and may resume at its next invocation), so it must be
 * safe to finish late or never.
 */
export async function awaitWhileTimeLeft(
  work: Promise<unknown>,
  context: Pick<Context, 'getRemainingTimeInMillis'>,
  marginMs: number,
): Promise<boolean> {
  const stopWaiting = new AbortController();
  const timeUp = sleep(Math.max(0, context.getRemainingTimeInMillis() - marginMs), false, {
    signal: stopWaiting.signal,
  }).catch(() => false);
  try {
    return await Promise.race([work.then(() => true), timeUp]);
  } finally {
    stopWaiting.abort();
  }
}
