/**
 * Section 4, lifecycle cost model: what one task costs in AWS when its upstream takes 1, 5 or 30 minutes.
 * lib/bench/lifecycle-probe.ts counts what the real handlers and ASL do; here the counts are priced.
 */
import { spawnTsx } from './child.js';
import type { ProbeResult, ProbeRun, StepUsage } from './lifecycle-probe.js';
import { ASSUMPTIONS, PRICES } from './pricing.js';

export interface CostRow {
  minutes: number;
  polls: number;
  transitions: number;
  lambdaInvocations: number;
  dynamoCalls: number;
  readUnits: number;
  writeUnits: number;
  s3Requests: number;
  sqsRequests: number;
  upstreamCalls: number;
  logBytes: number;
  /** USD per task, by service. */
  usd: Record<string, number>;
  totalUsd: number;
  /** Per Lambda function: invocations, storage calls and what they consumed. */
  steps: Record<string, StepUsage>;
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

export async function runLifecycleCost(log: (line: string) => void): Promise<CostRow[]> {
  log('running tasks through the real handlers and ASL (DynamoDB Local and fauxqs start first) ...');
  const probe = spawnTsx('lib/bench/lifecycle-probe.ts');
  try {
    const { runs } = await probe.waitFor<ProbeResult>('result', 240_000);
    const rows = runs.map(price);
    for (const row of rows) {
      log(
        `${String(row.minutes).padStart(2)}-minute task: ${row.polls} polls, ${row.transitions} transitions, ` +
          `${row.lambdaInvocations} invocations, ${row.dynamoCalls} DynamoDB calls: $${(row.totalUsd * 1000).toFixed(3)} per 1,000 tasks`,
      );
    }
    return rows;
  } finally {
    await probe.stop(5_000);
  }
}

function price(run: ProbeRun): CostRow {
  const steps = Object.entries(run.steps);
  const total = (pick: (step: StepUsage) => number) => sum(steps.map(([, step]) => pick(step)));
  const calls = (prefix: string, only = (_call: string) => true) =>
    total((step) =>
      sum(Object.entries(step.calls).map(([call, n]) => (call.startsWith(prefix) && only(call) ? n : 0))),
    );
  // Billed time: the local time plus what AWS adds (the upstream's round trips, the cross-region video download).
  const gbSeconds = sum(
    steps.flatMap(([fn, step]) =>
      step.ms.map((ms) => {
        const extra =
          (step.upstreamCalls / step.invocations) * ASSUMPTIONS.upstreamCallMs +
          (fn === 'TransferVideo' ? (run.videoBytes / 2 ** 20) * ASSUMPTIONS.transferMsPerMiB : 0);
        return (Math.ceil(ms + extra) / 1000) * (ASSUMPTIONS.memoryMb(fn) / 1024);
      }),
    ),
  );
  const invocations = total((step) => step.invocations);
  const s3Gets = calls('S3 ', (call) => call === 'S3 GET' || call === 'S3 HEAD');
  const s3Requests = calls('S3 ');
  const logBytes =
    total((step) => step.logBytes) +
    invocations * ASSUMPTIONS.platformLogBytes +
    total((step) => step.errors) * ASSUMPTIONS.errorLogBytes +
    run.executionLogBytes;
  const readUnits = total((step) => step.readUnits);
  const writeUnits = total((step) => step.writeUnits);
  const usd: Record<string, number> = {
    'Step Functions': run.transitions * PRICES.transition.usd,
    'Lambda requests': invocations * PRICES.lambdaRequest.usd,
    'Lambda duration': gbSeconds * PRICES.lambdaGbSecond.usd,
    DynamoDB: readUnits * PRICES.readUnit.usd + writeUnits * PRICES.writeUnit.usd,
    'API Gateway': PRICES.apiRequest.usd,
    'S3 requests': (s3Requests - s3Gets) * PRICES.s3Put.usd + s3Gets * PRICES.s3Get.usd,
    SQS: calls('SQS ') * PRICES.sqsRequest.usd,
    'CloudWatch Logs': (logBytes / 2 ** 30) * PRICES.logGb.usd,
    'X-Ray (upper bound)': ASSUMPTIONS.tracesPerTask * PRICES.trace.usd,
  };
  return {
    minutes: run.minutes,
    polls: run.polls,
    transitions: run.transitions,
    lambdaInvocations: invocations,
    dynamoCalls: calls('DynamoDB '),
    readUnits,
    writeUnits,
    s3Requests,
    sqsRequests: calls('SQS '),
    upstreamCalls: total((step) => step.upstreamCalls),
    logBytes,
    usd,
    totalUsd: sum(Object.values(usd)),
    steps: run.steps,
  };
}
