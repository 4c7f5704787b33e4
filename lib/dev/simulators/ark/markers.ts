/**
 * Prompt markers that make the simulated Ark misbehave the ways the real one can, per job: a failed or
 * expired task, a refused or rate-limited create, a flaky poll, a lost task, a bad download, a silent
 * callback_url. Markers combine (later ones win on the same field), so a new fault is one row in MARKERS
 * plus, if it needs it, one branch where the simulator reads the field.
 */

export interface Behaviour {
  /**
   * What the job ends as once queuedMs + runningMs have passed; `hang` stays running until its
   * execution_expires_after runs out (then `expired`); `expired` ends as `expired` at once.
   */
  outcome: 'succeeded' | 'failed' | 'expired' | 'hang';
  failure: { code: string; message: string };
  /** GET answers 503 for this many polls before behaving. */
  unavailablePolls: number;
  /** GET answers 404 right after creation, as if the upstream lost the task. */
  lost: boolean;
  /** `held`: half the file at once, the rest only once released (POST /simulator/release). */
  download: 'ok' | 'broken' | 'not-video' | 'slow' | 'held';
  /** POST answers 400, as Ark does for a prompt its input moderation refuses. */
  rejectCreate: boolean;
  /** POST of this exact prompt answers 429 this many times, then creates the task. */
  rateLimitedCreates: number;
  /** Added to the running time: a long generation, whatever the simulator's timings. */
  extraRunningMs: number;
  /** Added to the queued time: a job that waits in Ark's queue (and so can still be cancelled). */
  extraQueuedMs: number;
  /** Never POSTs to the request's callback_url, so a client must find the outcome by polling. */
  noCallback: boolean;
  /** Runs until released (POST /simulator/release), then for the usual running time: a test sets the pace. */
  held: boolean;
  /** Stays queued until released (POST /simulator/release), then runs as usual: it holds a queued slot. */
  heldQueued: boolean;
  /**
   * Multiplies the job's execution_expires_after (at least an hour, as Ark allows), so that a test sees Ark
   * expire it within seconds. Timing only: the value sent is still checked.
   */
  expiryScale: number;
}

export const DEFAULT_BEHAVIOUR: Behaviour = {
  outcome: 'succeeded',
  failure: { code: 'InternalServiceError', message: 'The service encountered an unexpected internal error.' },
  unavailablePolls: 0,
  lost: false,
  download: 'ok',
  rejectCreate: false,
  rateLimitedCreates: 0,
  extraRunningMs: 0,
  extraQueuedMs: 0,
  noCallback: false,
  held: false,
  heldQueued: false,
  expiryScale: 1,
};

export const MARKERS: Readonly<Record<string, Partial<Behaviour>>> = {
  // A generation that fails upstream for no reason the customer could change (the default failure).
  '[simulate:fail]': { outcome: 'failed' },
  '[simulate:output-moderation]': {
    outcome: 'failed',
    // Real Ark code for output moderation (error-code table, 400 BadRequest family).
    failure: {
      code: 'OutputVideoSensitiveContentDetected',
      message: 'The request failed because the output video may contain sensitive information.',
    },
  },
  // The task outlives its execution_expires_after: reported `expired` when it would have finished.
  '[simulate:expire]': { outcome: 'expired' },
  '[simulate:upstream-5xx]': { unavailablePolls: 2 },
  '[simulate:hang]': { outcome: 'hang' },
  // Not a fault: Ark's clock for this job's execution_expires_after runs 1,000 times faster (an hour: 3.6 s).
  '[simulate:fast-expiry]': { expiryScale: 0.001 },
  '[simulate:lost]': { lost: true },
  '[simulate:broken-download]': { download: 'broken' },
  '[simulate:not-video]': { download: 'not-video' },
  '[simulate:reject]': { rejectCreate: true },
  // The first two creates of this exact prompt answer 429 RateLimitExceeded.EndpointRPMExceeded (a
  // retrying client gets through on the third); counted per prompt, in memory only.
  '[simulate:rate-limit]': { rateLimitedCreates: 2 },
  '[simulate:slow]': { extraRunningMs: 20_000 },
  '[simulate:queued]': { extraQueuedMs: 30_000 },
  '[simulate:slow-download]': { download: 'slow' },
  // The task runs as usual but never calls its callback_url back (none of its status changes).
  '[simulate:no-callback]': { noCallback: true },
  // Not a fault: a generation as long as the test wants, ended by POST /simulator/release?prompt=<part of it>.
  '[simulate:held]': { held: true },
  '[simulate:held-queued]': { heldQueued: true },
  // Not a fault: a transfer as long as the test wants; the file's second half waits for the same release.
  '[simulate:held-download]': { download: 'held' },
};

export function behaviourFor(prompt: string): Behaviour {
  let behaviour = { ...DEFAULT_BEHAVIOUR };
  for (const [marker, override] of Object.entries(MARKERS)) {
    if (prompt.includes(marker)) behaviour = { ...behaviour, ...override };
  }
  return behaviour;
}
