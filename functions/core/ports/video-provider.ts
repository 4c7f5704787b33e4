/**
 * Port to an upstream video generator. Each provider folder (functions/providers/<name>/) implements it;
 * the workflow only sees this interface.
 */
import type { ReferenceKind } from '../generation-options.js';
import type { ProviderContract, UpstreamWords } from '../provider-contract.js';
import type { ResolvedGeneration } from '../resolve-generation.js';

/** The generation as the upstream needs it: all of it but what only we use (our model, webhook, price). */
export type ProviderJobRequest = Omit<ResolvedGeneration, 'modelId' | 'modelName' | 'webhookUrl' | 'costUnits'> & {
  /** The key of the upstream model in the provider's contract (e.g. `seedance-1-5-pro`); the adapter maps it to the platform's id. */
  upstreamModel: string;
  /** How long the upstream may keep the job before giving up on it (StartUpstream derives it from the deadline). */
  expiresAfterSeconds: number;
  /** The upstream account (API key) to make the job with: its slot is the task's (docs/upstream-capacity.md). */
  account: string;
  /** Where the upstream reports the job's status changes (a hint: we re-read the job before acting). */
  callbackUrl?: string;
};

/** What an upstream's content moderation refused: one kind of input, or the video it generated. */
export type ModeratedContent = 'text' | 'image' | 'video' | 'audio' | 'output';
/** Why, when the upstream said: sensitive content, a real person's face (privacy), or copyright. */
export type ModerationConcern = 'sensitive' | 'privacy' | 'copyright';

/** Why a job failed, when it is something we tell the customer in our own words. */
export type JobFailureCause =
  | { kind: 'moderation'; content: ModeratedContent; concern: ModerationConcern }
  /** The upstream gave up on the job: it outlived its `expiresAfterSeconds`. */
  | { kind: 'expired' }
  /**
   * A reference could not be used: the upstream could not download it, or it is too large or of a type the
   * upstream does not take. `media` and `position` say which, when the upstream said: `position` counts the
   * job's references in the request's order, images first, then videos, then audios.
   */
  | { kind: 'reference'; problem: ReferenceProblem; media?: ReferenceKind; position?: number };

/** Why an upstream could not use a reference (`unusable`: it did not say why). */
export type ReferenceProblem = 'unreachable' | 'too-large' | 'wrong-type' | 'unusable';

export type ProviderJobStatus =
  | { state: 'queued' }
  | { state: 'running' }
  | { state: 'succeeded'; videoUrl: string }
  | { state: 'failed'; message: string; cause?: JobFailureCause }
  /** `cancelledAt` (ISO), when the upstream says: a cancel moments ago is most likely a customer's, still refunding. */
  | { state: 'cancelled'; cancelledAt?: string };

/**
 * What a cancel did. `cancelled`: the job had not started (or was cancelled before); it will never generate
 * or bill. `not-found`: the upstream does not know the job. `refused`: the job has started or ended and was
 * left as it is; `state` says which.
 */
export type CancelOutcome =
  | { outcome: 'cancelled' }
  | { outcome: 'not-found' }
  | { outcome: 'refused'; state: 'running' | 'succeeded' | 'failed' };

/** Jobs made with `request` (its account, model and seed) between `createdFrom` and `createdTo` (ISO). */
export interface JobLookup {
  request: ProviderJobRequest;
  createdFrom: string;
  createdTo: string;
}

export interface VideoProvider {
  /** The bounds the upstream puts on `expiresAfterSeconds` (StartUpstream keeps the request within them). */
  readonly jobExpirySeconds: { min: number; max: number };
  /** Its contract's names and ids, kept from the customer's failure reasons (none: nothing is hidden). */
  readonly privateWords?: UpstreamWords;
  /** Creates an upstream job. Never retried blindly by callers: a timeout may still have created it. */
  createJob(request: ProviderJobRequest): Promise<{ jobId: string }>;
  /** `account`: the one the job was made with (its key sees the job). */
  getJob(jobId: string, account: string): Promise<ProviderJobStatus>;
  /**
   * Cancels the job if it has not started generating, and says what happened. Never deletes a finished
   * job's record. Throws when the upstream could not be asked (the outcome is then unknown).
   */
  cancelJob(jobId: string, account: string): Promise<CancelOutcome>;
  /**
   * The ids of the upstream's jobs that match `lookup` (a create whose answer was lost may have made one).
   * Throws when the upstream could not be asked: an unknown answer is never "none".
   */
  findJobs(lookup: JobLookup): Promise<string[]>;
}

/** How the composition root builds a provider's adapter (functions/adapters/wiring/provider-dependencies.ts). */
export interface VideoProviderOptions {
  /** One of the contract's platforms (checked when read from the environment). */
  platform: string;
  baseUrl: string;
  /** The API key of an upstream account. */
  apiKey: (account: string) => Promise<string>;
  requestTimeoutMs: number;
}

/** What a provider folder exports (its `index.ts`, docs/providers/README.md): its contract and its adapter. */
export interface ProviderDefinition extends ProviderContract {
  createVideoProvider(options: VideoProviderOptions): VideoProvider;
}
