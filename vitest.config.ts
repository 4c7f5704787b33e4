import { defineConfig } from 'vitest/config';
import { SlowFilesFirst } from './test/support/slow-files-first.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Kills what a failed or timed-out test left running (local stacks, DynamoDB Local JVMs). The Lambda
    // bundles are built once (test/support/prebuilt-bundles.ts), then the run's one shared stack starts
    // (test/support/shared-stack-setup.ts), which most e2e files and every integration file's tables use.
    globalSetup: [
      'test/support/leftover-processes.ts',
      'test/support/prebuilt-bundles.ts',
      'test/support/shared-stack-setup.ts',
    ],
    sequence: { sequencer: SlowFilesFirst },
    // Each integration/e2e file starts its own emulators (one JVM each). Most of an e2e file's time is spent
    // waiting on its stack, so three at a time keep 2 cores busy without starving them (measured: 2 workers
    // left the run at 13 min on 2 idle cores).
    pool: 'forks',
    // fauxqs uses node:sqlite, which warns on every start under Node 22.
    execArgv: ['--disable-warning=ExperimentalWarning'],
    maxWorkers: 3,
    // Generous, for a machine other work shares: nothing asserts on time, these only end a hung test.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    reporters: ['default'],
  },
});
