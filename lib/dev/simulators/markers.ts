/**
 * The prompt markers every simulator reads alike (docs/local-stack.md, "Simulator markers"): faults of the
 * transport and the timing, the same whoever the provider. How a job ends (`fail`, `hang`, moderation, expiry)
 * is each provider's own reading, in its markers.ts. Markers combine: later ones win on the same field.
 */

export type Download = 'ok' | 'broken' | 'not-video' | 'slow' | 'held';

export interface SharedBehaviour {
  /** GET answers the provider's 5xx for this many polls before behaving. */
  unavailablePolls: number;
  /** The upstream forgets the task right after creating it. */
  lost: boolean;
  /** `held`: half the file at once, the rest only once released (POST /simulator/release). */
  download: Download;
  /** The create is refused, as for a prompt the provider's input moderation refuses. */
  rejectCreate: boolean;
  /** Creates of this exact prompt answer 429 this many times, then create the task. */
  rateLimitedCreates: number;
  /** Added to the running time: a long generation, whatever the simulator's timings. */
  extraRunningMs: number;
  /** Added to the queued time: a job that waits in the queue (and so can still be cancelled). */
  extraQueuedMs: number;
  /** Runs until released (POST /simulator/release), then for the usual running time: a test sets the pace. */
  held: boolean;
  /** Stays queued until released (POST /simulator/release), then runs as usual: it holds a queued slot. */
  heldQueued: boolean;
}

export const SHARED_DEFAULTS: SharedBehaviour = {
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

export const SHARED_MARKERS: Readonly<Record<string, Partial<SharedBehaviour>>> = {
  '[simulate:upstream-5xx]': { unavailablePolls: 2 },
  '[simulate:lost]': { lost: true },
  '[simulate:broken-download]': { download: 'broken' },
  '[simulate:not-video]': { download: 'not-video' },
  '[simulate:reject]': { rejectCreate: true },
  // The first two creates of this exact prompt are rate-limited (a retrying client gets through on the third);
  // counted per prompt, in memory only.
  '[simulate:rate-limit]': { rateLimitedCreates: 2 },
  '[simulate:slow]': { extraRunningMs: 20_000 },
  '[simulate:queued]': { extraQueuedMs: 30_000 },
  '[simulate:slow-download]': { download: 'slow' },
  // Not a fault: a generation as long as the test wants, ended by POST /simulator/release?prompt=<part of it>.
  '[simulate:held]': { held: true },
  '[simulate:held-queued]': { heldQueued: true },
  // Not a fault: a transfer as long as the test wants; the file's second half waits for the same release.
  '[simulate:held-download]': { download: 'held' },
};

/** `defaults` with the overrides of every marker in `prompt`, in the order of `markers`. */
export function markedBehaviour<B extends object>(
  prompt: string,
  defaults: B,
  markers: Readonly<Record<string, Partial<B>>>,
): B {
  let behaviour = { ...defaults };
  for (const [marker, override] of Object.entries(markers)) {
    if (prompt.includes(marker)) behaviour = { ...behaviour, ...override };
  }
  return behaviour;
}
