/**
 * What every provider's simulator folder exports (its `index.ts`, `simulator`; docs/providers/README.md), and
 * how the local stack finds it: by the provider's name in functions/providers/registry.ts, so a new provider
 * needs no line here. A simulator imports nothing from functions/: it is its own reading of the documents.
 */

import type { ReferenceLimit } from './reference-fetch.js';

/** One job as a simulator holds it: what tests and the local stack look at. */
export interface SimulatedJob {
  id: string;
  model: string;
  prompt: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled' | 'expired';
  /** Epoch milliseconds. */
  createdAt: number;
  cancelled: boolean;
  deleted: boolean;
  /** The create body as received. */
  request: Record<string, unknown>;
}

export interface RunningSimulator {
  /** What the adapter is given as its base URL. */
  baseUrl: string;
  port: number;
  close(): Promise<void>;
  jobs(): SimulatedJob[];
}

/** What every simulator's own start function takes, beside its provider's knobs (in tests). */
export interface SimulatorOptions<Media extends string> {
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** How long a job stays queued (when nothing else holds it there). */
  queuedMs?: number;
  /** How long a job stays running after the queue. */
  runningMs?: number;
  /** Key → master account: keys of one master account share its limits. Default: each key its own. */
  masterAccounts?: Record<string, string>;
  /**
   * When set, jobs are kept in this JSON file and reloaded on start: the real upstream outlives a crash
   * of our service, so the simulated one must too (the crash test relies on it).
   */
  stateFile?: string;
  /** Epoch milliseconds; inject to move time (expiry, URL lifetime) without waiting. Default Date.now. */
  now?: () => number;
  /** Per media, the size and types a reference may have (default: the provider's references.ts). */
  referenceLimits?: Partial<Record<Media, ReferenceLimit>>;
  /** How long each reference's download may take (default 10 s). */
  referenceTimeoutMs?: number;
}

export interface SimulatorStart {
  /** One of the provider's platforms. */
  platform: string;
  /** One key per upstream account. */
  apiKeys: string[];
  maxQueuedPerAccount?: number;
  maxInflightPerAccount?: number;
  /** Key → master account (keys of one master account share its limits). */
  masterAccounts?: Record<string, string>;
  queuedMs?: number;
  runningMs?: number;
  stateFile?: string;
}

export interface ProviderSimulator {
  /** Where its jobs persist under the data directory (the real upstream outlives a crash of ours). */
  stateFile: string;
  start(options: SimulatorStart): Promise<RunningSimulator>;
}

/** The simulator of `provider`: `lib/dev/simulators/<provider>/index.ts`; a missing folder fails the start. */
export async function loadSimulator(provider: string): Promise<ProviderSimulator> {
  const url = new URL(`./${provider}/index.ts`, import.meta.url);
  const module = (await import(url.href).catch((error: unknown) => {
    throw new Error(`no simulator for provider ${provider}: lib/dev/simulators/${provider}/index.ts`, {
      cause: error,
    });
  })) as { simulator?: ProviderSimulator };
  if (!module.simulator) throw new Error(`lib/dev/simulators/${provider}/index.ts exports no \`simulator\``);
  return module.simulator;
}
