/**
 * Every upstream call is counted, timed, and counted again when it fails (the upstream error-rate alarm);
 * an error only an operator can fix is counted once more (the operator alarm).
 */
import { describe, expect, it } from 'vitest';
import { MeteredVideoProvider } from '../../functions/adapters/upstream/metered-video-provider.js';
import type { VideoProvider } from '../../functions/core/ports/video-provider.js';
import {
  UpstreamAccountError,
  UpstreamBusyError,
  UpstreamConfigurationError,
  UpstreamTransientError,
} from '../../functions/core/upstream-errors.js';

function recorder() {
  const recorded: [string, string, number, string][] = [];
  return {
    recorded,
    addMetric: (name: string, unit: string, value: number, provider: string) =>
      void recorded.push([name, unit, value, provider]),
  };
}

const upstream: VideoProvider = {
  jobExpirySeconds: { min: 3600, max: 259_200 },
  createJob: async () => ({ jobId: 'cgt-1' }),
  getJob: async () => {
    throw new UpstreamTransientError('503');
  },
  cancelJob: async () => ({ outcome: 'refused', state: 'running' }),
  findJobs: async () => [],
};

describe('MeteredVideoProvider', () => {
  it('records request, latency, and errors; results and errors pass through unchanged', async () => {
    let now = 100;
    const metrics = recorder();
    const provider = new MeteredVideoProvider(upstream, metrics, 'ark', () => (now += 25));
    expect(await provider.createJob({} as never)).toEqual({ jobId: 'cgt-1' });
    await expect(provider.getJob('cgt-1', 'default')).rejects.toBeInstanceOf(UpstreamTransientError);
    expect(metrics.recorded).toEqual([
      ['UpstreamRequests', 'Count', 1, 'ark'],
      ['UpstreamLatency', 'Milliseconds', 25, 'ark'],
      ['UpstreamRequests', 'Count', 1, 'ark'],
      ['UpstreamErrors', 'Count', 1, 'ark'],
      ['UpstreamLatency', 'Milliseconds', 25, 'ark'],
    ]);
  });

  it("a cancel's outcome passes through; a refused cancel is an answer, not an error", async () => {
    const metrics = recorder();
    const provider = new MeteredVideoProvider(upstream, metrics, 'ark', () => 0);
    expect(await provider.cancelJob('cgt-1', 'default')).toEqual({ outcome: 'refused', state: 'running' });
    expect(metrics.recorded.map(([name]) => name)).toEqual(['UpstreamRequests', 'UpstreamLatency']);
  });

  it.each([
    [new UpstreamAccountError('401 AuthenticationError'), true],
    [new UpstreamConfigurationError('404 ModelNotOpen'), true],
    [new UpstreamBusyError('429 QuotaExceeded'), false],
    [new UpstreamTransientError('500'), false],
  ])('%s → counted for the operator alarm: %s', async (error, operator) => {
    const metrics = recorder();
    const failing: VideoProvider = { ...upstream, createJob: async () => Promise.reject(error) };
    const provider = new MeteredVideoProvider(failing, metrics, 'ark', () => 0);
    await expect(provider.createJob({} as never)).rejects.toBe(error);
    const errors = metrics.recorded.filter(([name]) => name !== 'UpstreamRequests' && name !== 'UpstreamLatency');
    expect(errors).toEqual([
      ['UpstreamErrors', 'Count', 1, 'ark'],
      ...(operator ? [['UpstreamOperatorErrors', 'Count', 1, 'ark']] : []),
    ]);
  });
});
