/**
 * Lambda concurrency, sized so that an API flood cannot starve the work customers already paid for: each
 * workflow step, the webhook consumer and the task starter reserve their own executions; the API's functions
 * share what is left, and each route's API Gateway throttle keeps its share within that. docs/capacity.md.
 */
import { TASK_STARTS, UPLOAD_TRANSCODER, WEBHOOK_QUEUE } from '../../../functions/adapters/runtime/resources.js';

/** Lambda's default concurrency quota per account and Region ("Lambda quotas"); context `lambdaConcurrencyQuota`. */
export const DEFAULT_LAMBDA_CONCURRENCY_QUOTA = 1000;
/** Lambda keeps at least this much unreserved: a reservation that would leave less is refused ("Lambda quotas"). */
export const MIN_UNRESERVED_CONCURRENCY = 100;

/** Reserved concurrent executions per function id (lib/ship/routes.ts), with why. */
export const RESERVED_CONCURRENCY: Readonly<Record<string, number>> = {
  // Short DynamoDB-only steps run once or twice per task: 10 at ~100 ms each is ~100 tasks/s.
  WaitForUpstreamSlot: 10,
  CompleteTask: 10,
  FailAndRefund: 10,
  // One create per task, up to the 50 s timeout when the upstream is slow.
  StartUpstream: 20,
  // One look per job every check interval (60 s polls, 300 s behind callbacks): 20 cover thousands of jobs.
  AwaitCompletion: 20,
  // Downloads run for minutes each (up to 12 of TransferVideo's 15): 50 finish 50 videos at once.
  TransferVideo: 50,
  // Transcodes take up to 130 s at 4 GB each: few at once, rare (H.265 uploads only). PrepareInputs waits for
  // TranscodeUpload's answer, so the same number: a transcode is never throttled while its caller runs.
  PrepareInputs: 10,
  [UPLOAD_TRANSCODER.id]: 10,
  // Exactly the event source's MaximumConcurrency: the poller never invokes more, so it is never throttled.
  [WEBHOOK_QUEUE.consumer.id]: WEBHOOK_QUEUE.consumer.maxConcurrency,
  // One batch per stream shard at a time: a handful of shards.
  [TASK_STARTS.starter.id]: 5,
};

export const TOTAL_RESERVED = Object.values(RESERVED_CONCURRENCY).reduce((sum, n) => sum + n, 0);

/** What the API functions share: the quota less every reservation (an account-wide pool, see docs/capacity.md). */
export function apiConcurrency(quota: number): number {
  return quota - TOTAL_RESERVED;
}
