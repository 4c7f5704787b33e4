/**
 * Vitest's order, with the files known to take longest first: a clean clone has no timings cached, and then
 * vitest orders by file size, which left a three-minute file to start last and run alone (measured in CI).
 */
import { BaseSequencer } from 'vitest/node';
import type { TestSpecification } from 'vitest/node';

/**
 * The files that take longest, as measured in a full run on 2 cores: those that mostly wait on a stack's timers
 * (crash, capacity, live status, the browser) alternate with those that keep a core busy (synthesis, bundles,
 * fuzzing, CLIs), each kind longest first. Four waiting files at once left both cores idle for 25 s.
 */
const SLOW_FILES = [
  'test/reliability/crash-at-scale.test.ts',
  'test/infra/lambda-bundles.test.ts',
  'test/e2e/upstream-capacity.test.ts',
  'test/infra/synth-anywhere.test.ts',
  'test/e2e/live-status.test.ts',
  'test/reliability/http-fuzz.test.ts',
  'test/e2e/console-browser.test.ts',
  'test/integration/upgrade-tables.test.ts',
  'test/e2e/upstream-faults.test.ts',
  'test/reliability/money-concurrency.test.ts',
  'test/e2e/local-stack-children.test.ts',
  'test/infra/sam-local.test.ts',
  'test/integration/local-step-functions-task-tokens.test.ts',
  'test/integration/command-help.test.ts',
  'test/e2e/real-upstream.test.ts',
  'test/integration/submit-concurrency.test.ts',
  'test/e2e/task-lifecycle.test.ts',
  'test/infra/video-service-stack.test.ts',
  'test/e2e/admin-cli.test.ts',
];

export class SlowFilesFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const index = SLOW_FILES.findIndex((file) => spec.moduleId.endsWith(file));
      return index === -1 ? SLOW_FILES.length : index;
    };
    // Array.prototype.sort is stable: the rest keep vitest's own order.
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
