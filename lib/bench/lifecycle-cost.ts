/**
 * Section 4, lifecycle cost model: what one task costs in AWS when its upstream takes 1, 5 or 30
 * minutes. The counts come from lib/bench/lifecycle-probe.ts, which runs the real handlers and the real
 * state machine with the waits overridden; here they are priced (lib/bench/pricing.ts).
 */
import { spawnTsx } from './child.js';
import type { ProbeResult, ProbeRun, Usage } from './lifecycle-probe.js';
import { ASSUMPTIONS, memoryMb, PRICES } from './pricing.js';
import { median, sum } from './stats.js';

export type Service =
  | 'Step Functions'
  | 'Lambda requests'
  | 'Lambda duration'
  | 'DynamoDB'
  | 'API Gateway'
  | 'S3 requests'
  | 'SQS'
  | 'CloudWatch Logs'
  | 'X-Ray (upper bound)';

export interface CostRow {
  name: string;
  upstreamSeconds: number;
  webhook: boolean;
  polls: number;
  transitions: number;
  lambdaInvocations: number;
  lambdaGbSeconds: number;
  dynamoOperations: number;
  dynamoReadUnits: number;
  dynamoWriteUnits: number;
  s3Requests: number;
  sqsRequests: number;
  upstreamCalls: number;
  logBytes: number;
  /** USD per task. */
  cost: Record<Service, number>;
  totalUsd: number;
}

export interface StepRow {
  label: string;
  lambda: boolean;
  invocations: number;
  medianMs: number;
  dynamo: string;
  readUnits: number;
  writeUnits: number;
  other: string;
}

export interface QueryCost {
  name: string;
  dynamo: string;
  readUnits: number;
  writeUnits: number;
  upstreamCalls: number;
  medianMs: number;
  usdPerThousand: number;
}

export interface LifecycleCostResult {
  pollSchedule: number[];
  rows: CostRow[];
  steps: StepRow[];
  queries: QueryCost[];
  taskItemBytes: number;
  videoBytes: number;
}

const LAMBDA_LABELS = new Set([
  'SubmitTask (API)',
  'StartExecutions (stream)',
  'StartUpstream',
  'PollUpstream',
  'TransferVideo',
  'CompleteTask',
  'FailAndRefund',
  'DeliverWebhook',
]);
const isQuery = (label: string) => label.startsWith('GetTask (API');
const S3_PUT_CLASS = new Set([
  'PutObject',
  'CreateMultipartUpload',
  'UploadPart',
  'CompleteMultipartUpload',
  'CopyObject',
]);

export async function runLifecycleCost(log: (line: string) => void): Promise<LifecycleCostResult> {
  const probe = spawnTsx('lib/bench/lifecycle-probe.ts');
  let result: ProbeResult;
  try {
    result = await probe.waitFor<ProbeResult>('result', 240_000);
  } finally {
    await probe.stop(5_000);
  }
  const tasks = result.runs.filter((run) => run.transitions > 0);
  const rows = tasks.map(priceRun);
  for (const row of rows) {
    log(
      `${row.name.padEnd(20)} ${String(row.polls).padStart(2)} polls, ${String(row.transitions).padStart(3)} transitions, ` +
        `${row.lambdaInvocations} Lambda invocations, ${row.dynamoReadUnits} RRU / ${row.dynamoWriteUnits} WRU: ` +
        `$${(row.totalUsd * 1000).toFixed(3)} per 1,000 tasks`,
    );
  }
  const fiveMinutes = tasks.find((run) => run.upstreamSeconds === 300 && !run.webhook) ?? tasks[0]!;
  const withWebhook = tasks.find((run) => run.webhook);
  const steps = [fiveMinutes, ...(withWebhook ? [withWebhook] : [])].flatMap((run, index) =>
    Object.entries(run.usage)
      .filter(([label]) => !isQuery(label) && (index === 0 || !(label in fiveMinutes.usage)))
      .map(([label, usage]) => stepRow(label, usage)),
  );
  const queries = result.runs
    .flatMap((run) => Object.entries(run.usage).filter(([label]) => isQuery(label)))
    .filter(([label], index, all) => all.findIndex(([other]) => other === label) === index)
    .map(([label, usage]) => queryCost(label, usage));
  return {
    pollSchedule: result.pollSchedule,
    rows,
    steps,
    queries,
    taskItemBytes: fiveMinutes.taskItemBytes,
    videoBytes: fiveMinutes.videoBytes,
  };
}

function billedMs(label: string, usage: Usage, durationMs: number, videoBytes: number): number {
  const upstreamPerCall = usage.invocations > 0 ? usage.upstreamCalls / usage.invocations : 0;
  const transfer = label === 'TransferVideo' ? (videoBytes / 1024 / 1024) * ASSUMPTIONS.transferMsPerMiB : 0;
  return Math.ceil(durationMs + upstreamPerCall * ASSUMPTIONS.upstreamCallMs + transfer);
}

function priceRun(run: ProbeRun): CostRow {
  const entries = Object.entries(run.usage).filter(([label]) => !isQuery(label));
  const lambdas = entries.filter(([label]) => LAMBDA_LABELS.has(label));
  const lambdaInvocations = sum(lambdas.map(([, usage]) => usage.invocations));
  const lambdaGbSeconds = sum(
    lambdas.flatMap(([label, usage]) =>
      usage.handlerMs.map(
        (ms) => (billedMs(label, usage, ms, run.videoBytes) / 1000) * (memoryMb(label.replace(' (API)', '')) / 1024),
      ),
    ),
  );
  const count = (pick: (usage: Usage) => Record<string, number>, filter: (op: string) => boolean = () => true) =>
    sum(
      entries.flatMap(([, usage]) =>
        Object.entries(pick(usage))
          .filter(([op]) => filter(op))
          .map(([, n]) => n),
      ),
    );
  const dynamoReadUnits = sum(entries.map(([, usage]) => usage.readUnits));
  const dynamoWriteUnits = sum(entries.map(([, usage]) => usage.writeUnits));
  const s3Put = count(
    (usage) => usage.s3,
    (op) => S3_PUT_CLASS.has(op),
  );
  const s3Get = count(
    (usage) => usage.s3,
    (op) => !S3_PUT_CLASS.has(op),
  );
  const sqsRequests = count((usage) => usage.sqs);
  const stepFunctionsLogBytes =
    run.stateDataBytes +
    (run.taskStates * ASSUMPTIONS.eventsPerTaskState + run.otherStates * ASSUMPTIONS.eventsPerOtherState + 2) *
      ASSUMPTIONS.stepFunctionsEventBytes;
  const logBytes =
    sum(entries.map(([, usage]) => usage.logBytes)) +
    lambdaInvocations * ASSUMPTIONS.lambdaPlatformLogBytes +
    sum(entries.map(([, usage]) => usage.failedInvocations)) * ASSUMPTIONS.lambdaErrorLogBytes +
    stepFunctionsLogBytes;
  const cost: Record<Service, number> = {
    'Step Functions': run.transitions * PRICES.stepFunctionsTransition.usd,
    'Lambda requests': lambdaInvocations * PRICES.lambdaRequest.usd,
    'Lambda duration': lambdaGbSeconds * PRICES.lambdaArmGbSecond.usd,
    DynamoDB: dynamoReadUnits * PRICES.dynamoReadUnit.usd + dynamoWriteUnits * PRICES.dynamoWriteUnit.usd,
    'API Gateway': PRICES.httpApiRequest.usd,
    'S3 requests': s3Put * PRICES.s3PutRequest.usd + s3Get * PRICES.s3GetRequest.usd,
    SQS: sqsRequests * PRICES.sqsRequest.usd,
    'CloudWatch Logs': (logBytes / 1024 ** 3) * PRICES.logsIngestedGb.usd,
    'X-Ray (upper bound)': ASSUMPTIONS.tracesPerTask * PRICES.xrayTrace.usd,
  };
  return {
    name: run.name,
    upstreamSeconds: run.upstreamSeconds,
    webhook: run.webhook,
    polls: run.polls,
    transitions: run.transitions,
    lambdaInvocations,
    lambdaGbSeconds,
    dynamoOperations: count((usage) => usage.dynamo),
    dynamoReadUnits,
    dynamoWriteUnits,
    s3Requests: s3Put + s3Get,
    sqsRequests,
    upstreamCalls: sum(entries.map(([, usage]) => usage.upstreamCalls)),
    logBytes,
    cost,
    totalUsd: sum(Object.values(cost)),
  };
}

const describeOps = (ops: Record<string, number>) =>
  Object.entries(ops)
    .map(([op, n]) => `${n}× ${op}`)
    .join(', ') || '–';

function stepRow(label: string, usage: Usage): StepRow {
  const other = [
    ...Object.entries(usage.s3).map(([op, n]) => `${n}× S3 ${op}`),
    ...Object.entries(usage.sqs).map(([op, n]) => `${n}× SQS ${op}`),
    ...(usage.upstreamCalls > 0 ? [`${usage.upstreamCalls}× upstream call`] : []),
  ];
  return {
    label,
    lambda: LAMBDA_LABELS.has(label),
    invocations: usage.invocations,
    medianMs: median(usage.handlerMs),
    dynamo: describeOps(usage.dynamo),
    readUnits: usage.readUnits,
    writeUnits: usage.writeUnits,
    other: other.join(', ') || '–',
  };
}

function queryCost(label: string, usage: Usage): QueryCost {
  const perQuery = (total: number) => total / Math.max(1, usage.invocations);
  const ms = median(usage.handlerMs) + perQuery(usage.upstreamCalls) * ASSUMPTIONS.upstreamCallMs;
  const usd =
    PRICES.httpApiRequest.usd +
    PRICES.lambdaRequest.usd +
    (Math.ceil(ms) / 1000) * (512 / 1024) * PRICES.lambdaArmGbSecond.usd +
    perQuery(usage.readUnits) * PRICES.dynamoReadUnit.usd +
    perQuery(usage.writeUnits) * PRICES.dynamoWriteUnit.usd;
  return {
    name: label.replace('GetTask (API, ', '').replace(')', ''),
    dynamo: describeOps(usage.dynamo),
    readUnits: perQuery(usage.readUnits),
    writeUnits: perQuery(usage.writeUnits),
    upstreamCalls: perQuery(usage.upstreamCalls),
    medianMs: median(usage.handlerMs),
    usdPerThousand: usd * 1000,
  };
}
