/**
 * Wraps a provider to record request count, errors and latency per call, by provider (its error-rate alarm),
 * and the errors only an operator can fix (a refused key or account, a model not offered: its operator alarm).
 */
import type {
  CancelOutcome,
  JobLookup,
  ProviderJobRequest,
  ProviderJobStatus,
  VideoProvider,
} from '../../core/ports/video-provider.js';
import { needsOperator } from '../../core/upstream-errors.js';
import { METRIC, MetricUnit } from '../runtime/metrics.js';
import type { MetricUnitValue } from '../runtime/metrics.js';

export interface MetricRecorder {
  addMetric(name: string, unit: MetricUnitValue, value: number, provider: string): void;
}

export class MeteredVideoProvider implements VideoProvider {
  constructor(
    private readonly inner: VideoProvider,
    private readonly recorder: MetricRecorder,
    private readonly provider: string,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  get jobExpirySeconds() {
    return this.inner.jobExpirySeconds;
  }

  get privateWords() {
    return this.inner.privateWords;
  }

  createJob(request: ProviderJobRequest): Promise<{ jobId: string }> {
    return this.measure(() => this.inner.createJob(request));
  }

  getJob(jobId: string, account: string): Promise<ProviderJobStatus> {
    return this.measure(() => this.inner.getJob(jobId, account));
  }

  cancelJob(jobId: string, account: string): Promise<CancelOutcome> {
    return this.measure(() => this.inner.cancelJob(jobId, account));
  }

  findJobs(lookup: JobLookup): Promise<string[]> {
    return this.measure(() => this.inner.findJobs(lookup));
  }

  private async measure<T>(call: () => Promise<T>): Promise<T> {
    const started = this.clock();
    this.recorder.addMetric(METRIC.upstreamRequests, MetricUnit.Count, 1, this.provider);
    try {
      return await call();
    } catch (error) {
      this.recorder.addMetric(METRIC.upstreamErrors, MetricUnit.Count, 1, this.provider);
      if (needsOperator(error))
        this.recorder.addMetric(METRIC.upstreamOperatorErrors, MetricUnit.Count, 1, this.provider);
      throw error;
    } finally {
      this.recorder.addMetric(METRIC.upstreamLatency, MetricUnit.Milliseconds, this.clock() - started, this.provider);
    }
  }
}
