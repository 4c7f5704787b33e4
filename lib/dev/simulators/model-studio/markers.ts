/**
 * Prompt markers that make the simulated Model Studio misbehave per task: its own reading of how a task ends,
 * on top of the markers every simulator shares (../markers.ts; docs/local-stack.md, "Simulator markers"). Not
 * here: `expire` (DashScope has no task expiry) and `no-callback` (it calls no one back); `lost` answers
 * UNKNOWN, as DashScope does for a task it does not know.
 */
import { markedBehaviour, SHARED_DEFAULTS, SHARED_MARKERS } from '../markers.js';
import type { SharedBehaviour } from '../markers.js';

export interface Behaviour extends SharedBehaviour {
  /** `hang`: stays RUNNING. */
  outcome: 'succeeded' | 'failed' | 'hang';
  failure: { code: string; message: string };
}

export const DEFAULT_BEHAVIOUR: Behaviour = {
  ...SHARED_DEFAULTS,
  outcome: 'succeeded',
  failure: { code: 'InternalError', message: 'An internal error has occured, please try again later.' },
};

const MARKERS: Readonly<Record<string, Partial<Behaviour>>> = {
  '[simulate:fail]': { outcome: 'failed' },
  '[simulate:output-moderation]': {
    outcome: 'failed',
    failure: { code: 'DataInspectionFailed', message: 'Output data may contain inappropriate content.' },
  },
  '[simulate:hang]': { outcome: 'hang' },
  ...SHARED_MARKERS,
};

export const behaviourFor = (prompt: string): Behaviour => markedBehaviour(prompt, DEFAULT_BEHAVIOUR, MARKERS);
