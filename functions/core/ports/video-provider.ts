/**
 * Port to an upstream video generator (Volcengine Ark / BytePlus ModelArk first).
 * Adapters live in functions/adapters; the workflow only sees this interface.
 */
import type { ResolvedGeneration } from '../resolve-generation.js';

/** The generation as the upstream needs it: all of it but what only we use (our model, webhook, price). */
export type ProviderJobRequest = Omit<ResolvedGeneration, 'modelId' | 'modelName' | 'webhookUrl' | 'costUnits'> & {
  /** The upstream provider's own model id, e.g. `doubao-seedance-1-5-pro-251215`. */
  upstreamModel: string;
};

export type ProviderJobStatus =
  | { state: 'queued' }
  | { state: 'running' }
  | { state: 'succeeded'; videoUrl: string }
  | { state: 'failed'; message: string }
  | { state: 'cancelled' };

export interface VideoProvider {
  /** Creates an upstream job. Never retried blindly by callers: a timeout may still have created it. */
  createJob(request: ProviderJobRequest): Promise<{ jobId: string }>;
  getJob(jobId: string): Promise<ProviderJobStatus>;
  /** Best effort; resolves when the upstream accepted the cancel or the job is already final. */
  cancelJob(jobId: string): Promise<void>;
}
