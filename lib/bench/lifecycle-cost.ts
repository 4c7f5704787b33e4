/**
 * Section 3, lifecycle cost model: what one task costs in AWS when its upstream takes 1, 5, 30 or 60 minutes,
 * with the upstream's callbacks (the fallback look every COMPLETION_CHECK_SECONDS) and without (a look every
 * COMPLETION_POLL_SECONDS). lib/bench/lifecycle-probe.ts counts what the real handlers and ASL do; here the
 * counts are priced.
 */
import { spawnTsx } from './child.js';
import type { ProbeResult, ProbeRun, StepUsage } from './lifecycle-probe.js';
import { ASSUMPTIONS, PRICES } from './pricing.js';

/** One task priced: its counts, USD per task by service, and per Lambda function what it used. */
export type CostRow = ReturnType<typeof price>;

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
export const costLabel = (row: Pick<CostRow, 'minutes' | 'callbacks'>) =>
  `${row.minutes} min, ${row.callbacks ? 'callbacks' : 'no callbacks'}`;

export async function runLifecycleCost(log: (line: string) => void): Promise<CostRow[]> {
  log('running tasks through the real handlers and ASL (DynamoDB Local and fauxqs start first) ...');
  const probe = spawnTsx('lib/bench/lifecycle-probe.ts');
  try {
    const { runs } = await probe.waitFor<ProbeResult>('result', 240_000);
    const rows = runs.map(price);
    for (const row of rows) {
      log(
        `${costLabel(row).padEnd(24)}: ${row.checks} looks, ${row.callbacksDelivered} callbacks, ` +
          `${row.transitions} transitions, ${row.lambdaInvocations} invocations, ${row.dynamoCalls} DynamoDB calls ` +
          `(${row.writeUnits} WCU): $${(row.totalUsd * 1000).toFixed(3)} per 1,000 tasks`,
      );
    }
    return rows;
  } finally {
    await probe.stop(5_000);
  }
}

function price(run: ProbeRun) {
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
  const sfnRequests = calls('SFN ');
  const usd: Record<string, number> = {
    'Step Functions': run.transitions * PRICES.transition.usd,
    'Step Functions API': sfnRequests * PRICES.sfnApiRequest.usd,
    'Lambda requests': invocations * PRICES.lambdaRequest.usd,
    'Lambda duration': gbSeconds * PRICES.lambdaGbSecond.usd,
    DynamoDB: readUnits * PRICES.readUnit.usd + writeUnits * PRICES.writeUnit.usd,
    'API Gateway': run.apiRequests * PRICES.apiRequest.usd,
    'S3 requests': (s3Requests - s3Gets) * PRICES.s3Put.usd + s3Gets * PRICES.s3Get.usd,
    SQS: calls('SQS ') * PRICES.sqsRequest.usd,
    'CloudWatch Logs': (logBytes / 2 ** 30) * PRICES.logGb.usd,
    'X-Ray (upper bound)': (run.apiRequests + ASSUMPTIONS.tracesPerExecution) * PRICES.trace.usd,
  };
  return {
    minutes: run.minutes,
    callbacks: run.callbacks,
    checkSeconds: run.checkSeconds,
    checks: run.checks,
    callbacksDelivered: run.callbacksDelivered,
    transitions: run.transitions,
    transitionsByState: run.transitionsByState,
    lambdaInvocations: invocations,
    sfnRequests,
    apiRequests: run.apiRequests,
    dynamoCalls: calls('DynamoDB '),
    transactions: calls('DynamoDB TransactWriteItems'),
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
