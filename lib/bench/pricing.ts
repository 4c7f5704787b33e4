/**
 * AWS list prices, us-east-1, on-demand, without free tiers (they are per account and month, not per
 * task). Sources: the service pricing pages named in each entry. This machine has no internet access:
 * the figures were read from copies of those pages (2025 versions; DynamoDB after its 1 November 2024
 * on-demand reduction) on the date below. Check them against the pages before quoting a bill.
 */
export const PRICES_CHECKED_ON = '2026-11-21';
export const PRICES_SOURCE_NOTE =
  'AWS pricing pages (2025 versions, read from stored copies on the date given: no live access from the bench machine)';

export interface Price {
  what: string;
  /** USD per unit. */
  usd: number;
  /** The price as the page states it. */
  per: string;
  source: string;
}

export const PRICES = {
  stepFunctionsTransition: {
    what: 'Step Functions Standard, state transition',
    usd: 0.025 / 1_000,
    per: '$0.025 per 1,000 transitions',
    source: 'https://aws.amazon.com/step-functions/pricing/',
  },
  lambdaRequest: {
    what: 'Lambda request',
    usd: 0.2 / 1_000_000,
    per: '$0.20 per 1M requests',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  lambdaArmGbSecond: {
    what: 'Lambda duration, arm64',
    usd: 0.0000133334,
    per: '$0.0000133334 per GB-second (first 7.5 billion GB-s a month)',
    source: 'https://aws.amazon.com/lambda/pricing/',
  },
  dynamoReadUnit: {
    what: 'DynamoDB on-demand read request unit',
    usd: 0.125 / 1_000_000,
    per: '$0.125 per 1M read request units',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  dynamoWriteUnit: {
    what: 'DynamoDB on-demand write request unit',
    usd: 0.625 / 1_000_000,
    per: '$0.625 per 1M write request units',
    source: 'https://aws.amazon.com/dynamodb/pricing/on-demand/',
  },
  httpApiRequest: {
    what: 'API Gateway HTTP API request',
    usd: 1 / 1_000_000,
    per: '$1.00 per 1M requests (first 300M a month)',
    source: 'https://aws.amazon.com/api-gateway/pricing/',
  },
  sqsRequest: {
    what: 'SQS standard queue request',
    usd: 0.4 / 1_000_000,
    per: '$0.40 per 1M requests (64 KB each)',
    source: 'https://aws.amazon.com/sqs/pricing/',
  },
  s3PutRequest: {
    what: 'S3 Standard PUT/COPY/POST/LIST request',
    usd: 0.005 / 1_000,
    per: '$0.005 per 1,000 requests',
    source: 'https://aws.amazon.com/s3/pricing/',
  },
  s3GetRequest: {
    what: 'S3 Standard GET request',
    usd: 0.0004 / 1_000,
    per: '$0.0004 per 1,000 requests',
    source: 'https://aws.amazon.com/s3/pricing/',
  },
  logsIngestedGb: {
    what: 'CloudWatch Logs ingestion (standard; vended logs same first tier)',
    usd: 0.5,
    per: '$0.50 per GB ingested',
    source: 'https://aws.amazon.com/cloudwatch/pricing/',
  },
  xrayTrace: {
    what: 'X-Ray trace recorded',
    usd: 5 / 1_000_000,
    per: '$5.00 per 1M traces recorded',
    source: 'https://aws.amazon.com/xray/pricing/',
  },
} as const satisfies Record<string, Price>;

/** Assumptions where the local run cannot stand for AWS; each is named in the report. */
export const ASSUMPTIONS = {
  /** us-east-1 Lambda ↔ Ark (BytePlus ModelArk, Asia) round trip per upstream API call, billed as Lambda time. */
  upstreamCallMs: 250,
  /** Extra TransferVideo time in AWS for the video (cross-region download, then the S3 upload), per MiB. */
  transferMsPerMiB: 200,
  /** Lambda's START/END/REPORT lines per invocation. */
  lambdaPlatformLogBytes: 400,
  /** The Node runtime's "Invoke Error" line (error JSON with its stack) per invocation that throws. */
  lambdaErrorLogBytes: 1_000,
  /** CloudWatch record of one Step Functions history event without its data (level ALL). */
  stepFunctionsEventBytes: 350,
  /** History events per state at log level ALL: a Task state ~5 (entered, scheduled, started, succeeded, exited). */
  eventsPerTaskState: 5,
  eventsPerOtherState: 2,
  /** Traces per task with 100 % sampling (the API request, the execution): an upper bound. */
  tracesPerTask: 2,
} as const;

/** Memory of each function (lib/cdk/service-functions.ts: 512 MB unless set; TransferVideo 1024 MB). */
export function memoryMb(functionId: string): number {
  return functionId === 'TransferVideo' ? 1024 : 512;
}
