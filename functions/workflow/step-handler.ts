/**
 * The middy chain of every state machine task: validate the step's input (valibot), run one use case.
 * Errors propagate with their `name`, which the state machine's Retry/Catch match.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import * as v from 'valibot';
import { logger } from '../adapters/runtime/logger.js';
import { publishMetrics } from '../adapters/runtime/metrics.js';
import { namedError } from '../core/named-error.js';

export class InvalidStepInputError extends namedError('InvalidStepInputError') {}

export function stepHandler<S extends v.GenericSchema, R>(schema: S, step: (input: v.InferOutput<S>) => Promise<R>) {
  return middy<unknown, R>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(publishMetrics())
    .handler(async (event) => {
      const parsed = v.safeParse(schema, event);
      if (!parsed.success) throw new InvalidStepInputError(v.summarize(parsed.issues));
      logger.appendKeys({ task_id: (parsed.output as { task_id?: string }).task_id });
      return step(parsed.output);
    });
}

export const taskId = v.pipe(v.string(), v.uuid());

/** A Step Functions task token (AWS: 1 to 1024 characters). */
export const taskToken = v.pipe(v.string(), v.minLength(1), v.maxLength(1024));
