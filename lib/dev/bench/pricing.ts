/**
 * AWS list prices (us-east-1, on demand, no free tier: that is per account, not per task) and the
 * assumptions the cost model makes where a local run cannot stand for AWS. Read from stored copies of the
 * pricing pages (2025 versions; the bench machine has no internet access): check them before quoting a bill.
 */
export const PRICES_CHECKED_ON = '2026-11-21';

const price = (usd: number, text: string, page: string) => ({ usd, text, source: `https://aws.amazon.com/${page}/` });

const SFN = 'step-functions/pricing';
export const PRICES = {
  transition: price(0.025 / 1e3, 'Step Functions Standard: $0.025 per 1,000 state transitions', SFN),
  // Standard workflows bill state transitions only: StartExecution, SendTaskSuccess and the other API calls are free.
  sfnApiRequest: price(
    0,
    'Step Functions Standard: API requests (StartExecution, SendTaskSuccess) $0; only state transitions are billed',
    SFN,
  ),
  lambdaRequest: price(0.2 / 1e6, 'Lambda: $0.20 per 1M requests', 'lambda/pricing'),
  lambdaGbSecond: price(0.0000133334, 'Lambda arm64: $0.0000133334 per GB-second', 'lambda/pricing'),
  readUnit: price(0.125 / 1e6, 'DynamoDB on demand: $0.125 per 1M read request units', 'dynamodb/pricing/on-demand'),
  writeUnit: price(0.625 / 1e6, 'DynamoDB on demand: $0.625 per 1M write request units', 'dynamodb/pricing/on-demand'),
  apiRequest: price(1 / 1e6, 'API Gateway HTTP API: $1.00 per 1M requests', 'api-gateway/pricing'),
  s3Put: price(0.005 / 1e3, 'S3 Standard: $0.005 per 1,000 PUT/COPY/POST/LIST requests', 's3/pricing'),
  s3Get: price(0.0004 / 1e3, 'S3 Standard: $0.0004 per 1,000 GET requests', 's3/pricing'),
  sqsRequest: price(0.4 / 1e6, 'SQS standard: $0.40 per 1M requests', 'sqs/pricing'),
  logGb: price(0.5, 'CloudWatch Logs: $0.50 per GB ingested', 'cloudwatch/pricing'),
  trace: price(5 / 1e6, 'X-Ray: $5.00 per 1M traces recorded', 'xray/pricing'),
};

export const ASSUMPTIONS = {
  /** Lambda memory (lib/ship/cdk/service-functions.ts): 512 MB, TransferVideo 1,024 MB. */
  memoryMb: (fn: string) => (fn === 'TransferVideo' ? 1024 : 512),
  /** Billed Lambda time per upstream call (us-east-1 to Ark in Asia), on top of the measured local time. */
  upstreamCallMs: 250,
  /** Billed TransferVideo time per MiB of video (cross-region download, S3 upload). */
  transferMsPerMiB: 200,
  /** Lambda's START/END/REPORT lines per invocation, and the runtime's error line per invocation that throws. */
  platformLogBytes: 400,
  errorLogBytes: 1_000,
  /** The state machine's log (level ALL): bytes per history event besides the state's data; events per state. */
  historyEventBytes: 350,
  eventsPerTaskState: 5,
  eventsPerOtherState: 2,
  /**
   * The upstream's callbacks before the final one (the simulator's, per Ark's "on status changes": queued,
   * running), each an API Gateway request and an UpstreamCallback invocation that re-reads the job.
   */
  progressCallbacks: 2,
  /** X-Ray at 100 % sampling: one trace per API request (the submit, each callback) and one for the execution. */
  tracesPerExecution: 1,
};
