/** describeFailure: the customer-facing reason a failed task stores, without internals. */
import { describe, expect, it } from 'vitest';
import {
  UpstreamJobNotFoundError,
  UpstreamOutcomeUnknownError,
  UpstreamRejectedError,
  UpstreamTransientError,
} from '../../functions/core/upstream-errors.js';
import {
  describeFailure,
  GenerationTimedOutError,
  UpstreamJobFailedError,
  VideoDownloadInterruptedError,
  VideoRejectedError,
} from '../../functions/core/workflow-errors.js';

describe('describeFailure', () => {
  const named: [string, string][] = [
    [new UpstreamJobFailedError('x').name, 'generation failed'],
    [new UpstreamRejectedError('x').name, 'the generator rejected the task'],
    [new UpstreamTransientError('x').name, 'the generator could not be reached'],
    [new UpstreamOutcomeUnknownError('x').name, 'the generator did not confirm the task'],
    [new UpstreamJobNotFoundError('x').name, 'the generator lost the task'],
    [new GenerationTimedOutError('x').name, 'generation timed out'],
    [new VideoRejectedError('x').name, 'the generated file could not be stored'],
    [new VideoDownloadInterruptedError('x').name, 'the generated video could not be downloaded'],
  ];

  it.each(named)('%s with a Lambda JSON Cause → "%s: <errorMessage>"', (name, prefix) => {
    const Cause = JSON.stringify({ errorType: name, errorMessage: 'content policy', trace: ['at secret.ts:1'] });
    expect(describeFailure({ Error: name, Cause })).toBe(`${prefix}: content policy`);
  });

  it.each(named)('%s with a plain Cause → "%s: <cause>"', (name, prefix) => {
    expect(describeFailure({ Error: name, Cause: 'quota exhausted' })).toBe(`${prefix}: quota exhausted`);
  });

  it.each(named)('%s without a Cause → "%s"', (name, prefix) => {
    expect(describeFailure({ Error: name })).toBe(prefix);
    expect(describeFailure({ Error: name, Cause: '' })).toBe(prefix);
  });

  it('the error names are the class names the state machine matches', () => {
    expect(named.map(([name]) => name)).toEqual([
      'UpstreamJobFailedError',
      'UpstreamRejectedError',
      'UpstreamTransientError',
      'UpstreamOutcomeUnknownError',
      'UpstreamJobNotFoundError',
      'GenerationTimedOutError',
      'VideoRejectedError',
      'VideoDownloadInterruptedError',
    ]);
  });

  it.each(['TypeError', 'Error', 'States.TaskFailed', 'Lambda.Unknown', 'States.Runtime', 'TaskNotFoundError'])(
    'an unknown error (%s) → a generic message without internals',
    (name) => {
      const Cause = JSON.stringify({
        errorType: name,
        errorMessage: 'connect ECONNREFUSED 10.0.0.12:8000 table tasks-prod',
        trace: ['at /var/task/index.mjs:42'],
      });
      const message = describeFailure({ Error: name, Cause });
      expect(message).toBe('internal error while processing the task');
      expect(message).not.toMatch(/ECONNREFUSED|10\.0\.0|var\/task|tasks-prod/);
    },
  );

  it('States.Timeout → a processing step timed out', () => {
    expect(describeFailure({ Error: 'States.Timeout' })).toBe('a processing step timed out');
    expect(describeFailure({ Error: 'States.Timeout', Cause: 'internal detail' })).toBe('a processing step timed out');
  });
});
