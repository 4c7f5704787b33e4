/**
 * Prompt markers that make the simulated Model Studio misbehave per task, the Ark simulator's where they
 * apply (docs/local-stack.md, "Simulator markers"). Not here: `expire` (DashScope has no task expiry) and
 * `no-callback` (it calls no one back); `lost` answers UNKNOWN, as DashScope does for a task it does not know.
 */

export interface Behaviour {
  /** `hang`: stays RUNNING. */
  outcome: 'succeeded' | 'failed' | 'hang';
  failure: { code: string; message: string };
  /** GET answers 500 for this many polls. */
  unavailablePolls: number;
  lost: boolean;
  download: 'ok' | 'broken' | 'not-video' | 'slow' | 'held';
  rejectCreate: boolean;
  rateLimitedCreates: number;
  extraRunningMs: number;
  extraQueuedMs: number;
  held: boolean;
  heldQueued: boolean;
}

export const DEFAULT_BEHAVIOUR: Behaviour = {
  outcome: 'succeeded',
  failure: { code: 'InternalError', message: 'An internal error has occured, please try again later.' },
  unavailablePolls: 0,
  lost: false,
  download: 'ok',
  rejectCreate: false,
  rateLimitedCreates: 0,
  extraRunningMs: 0,
  extraQueuedMs: 0,
  held: false,
  heldQueued: false,
};

const MARKERS: Readonly<Record<string, Partial<Behaviour>>> = {
  '[simulate:fail]': { outcome: 'failed' },
  '[simulate:output-moderation]': {
    outcome: 'failed',
    failure: { code: 'DataInspectionFailed', message: 'Output data may contain inappropriate content.' },
  },
  '[simulate:upstream-5xx]': { unavailablePolls: 2 },
  '[simulate:hang]': { outcome: 'hang' },
  '[simulate:lost]': { lost: true },
  '[simulate:broken-download]': { download: 'broken' },
  '[simulate:not-video]': { download: 'not-video' },
  '[simulate:reject]': { rejectCreate: true },
  '[simulate:rate-limit]': { rateLimitedCreates: 2 },
  '[simulate:slow]': { extraRunningMs: 20_000 },
  '[simulate:queued]': { extraQueuedMs: 30_000 },
  '[simulate:slow-download]': { download: 'slow' },
  '[simulate:held]': { held: true },
  '[simulate:held-queued]': { heldQueued: true },
  '[simulate:held-download]': { download: 'held' },
};

export function behaviourFor(prompt: string): Behaviour {
  let behaviour = { ...DEFAULT_BEHAVIOUR };
  for (const [marker, override] of Object.entries(MARKERS)) {
    if (prompt.includes(marker)) behaviour = { ...behaviour, ...override };
  }
  return behaviour;
}
