/**
 * Scheduled every minute (docs/money-and-ledger.md, "Top-ups"): pending top-ups are asked of Alipay, so a
 * notification lost for good still credits once, and an expired unpaid order is closed on both sides.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { sweepTopups } from '../core/use-cases/topups/sweep-topups.js';
import { topupDependencies } from '../adapters/wiring/topup-dependencies.js';
import { logger } from '../adapters/runtime/logger.js';
import { publishMetrics } from '../adapters/runtime/metrics.js';

/** Orders looked at per run: a few seconds of Alipay calls each minute at most. */
const BATCH = 50;
const deps = { ...topupDependencies(), batch: BATCH };

export const handler = middy<unknown, unknown>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .use(publishMetrics())
  .handler(async () => {
    const counts = await sweepTopups(deps);
    if (counts.looked > 0) logger.info('swept pending top-ups', { ...counts });
    return counts;
  });
