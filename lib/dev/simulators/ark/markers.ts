/**
 * Prompt markers that make the simulated Ark misbehave the ways the real one can, per job: Ark's own reading of
 * how a job ends (a failed, moderated or expired task, a hang) and Ark's callbacks, on top of the markers every
 * simulator shares (../markers.ts: refused or rate-limited creates, flaky polls, lost tasks, bad downloads).
 * A new fault is one row here or there, plus, if it needs it, one branch where the simulator reads the field.
 */
import { markedBehaviour, SHARED_DEFAULTS, SHARED_MARKERS } from '../markers.js';
import type { SharedBehaviour } from '../markers.js';

export interface Behaviour extends SharedBehaviour {
  /**
   * What the job ends as once queuedMs + runningMs have passed; `hang` stays running until its
   * execution_expires_after runs out (then `expired`); `expired` ends as `expired` at once.
   */
  outcome: 'succeeded' | 'failed' | 'expired' | 'hang';
  failure: { code: string; message: string };
  /** Never POSTs to the request's callback_url, so a client must find the outcome by polling. */
  noCallback: boolean;
  /**
   * Multiplies the job's execution_expires_after (at least an hour, as Ark allows), so that a test sees Ark
   * expire it within seconds. Timing only: the value sent is still checked.
   */
  expiryScale: number;
}

export const DEFAULT_BEHAVIOUR: Behaviour = {
  ...SHARED_DEFAULTS,
  outcome: 'succeeded',
  failure: { code: 'InternalServiceError', message: 'The service encountered an unexpected internal error.' },
  noCallback: false,
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
  '[simulate:hang]': { outcome: 'hang' },
  // Not a fault: Ark's clock for this job's execution_expires_after runs 1,000 times faster (an hour: 3.6 s).
  '[simulate:fast-expiry]': { expiryScale: 0.001 },
  // The task runs as usual but never calls its callback_url back (none of its status changes).
  '[simulate:no-callback]': { noCallback: true },
  ...SHARED_MARKERS,
};

export const behaviourFor = (prompt: string): Behaviour => markedBehaviour(prompt, DEFAULT_BEHAVIOUR, MARKERS);
