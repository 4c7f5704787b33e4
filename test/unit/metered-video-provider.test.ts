/** Every upstream call is counted, timed, and counted again when it fails (the upstream error-rate alarm). */
import { describe, expect, it } from 'vitest';
import { MeteredVideoProvider } from '../../functions/adapters/metered-video-provider.js';
import type { VideoProvider } from '../../functions/core/ports/video-provider.js';
import { UpstreamTransientError } from '../../functions/core/upstream-errors.js';

function recorder() {
  const recorded: [string, string, number, string][] = [];
  return {
    recorded,
    addMetric: (name: string, unit: string, value: number, provider: string) =>
      void recorded.push([name, unit, value, provider]),
  };
}

const upstream: VideoProvider = {
  createJob: async () => ({ jobId: 'cgt-1' }),
  getJob: async () => {
    throw new UpstreamTransientError('503');
  },
  cancelJob: async () => undefined,
};

describe('MeteredVideoProvider', () => {
  it('records request, latency, and errors; results and errors pass through unchanged', async () => {
    let now = 100;
    const metrics = recorder();
    const provider = new MeteredVideoProvider(upstream, metrics, 'ark', () => (now += 25));
    expect(await provider.createJob({} as never)).toEqual({ jobId: 'cgt-1' });
    await expect(provider.getJob('cgt-1')).rejects.toBeInstanceOf(UpstreamTransientError);
    expect(metrics.recorded).toEqual([
      ['UpstreamRequests', 'Count', 1, 'ark'],
      ['UpstreamLatency', 'Milliseconds', 25, 'ark'],
      ['UpstreamRequests', 'Count', 1, 'ark'],
      ['UpstreamErrors', 'Count', 1, 'ark'],
      ['UpstreamLatency', 'Milliseconds', 25, 'ark'],
    ]);
  });
});
