import { defineConfig } from 'vitest/config';
import { SlowFilesFirst } from './test/support/slow-files-first.js';

export default defineConfig({
  test: {
    sequence: { sequencer: SlowFilesFirst },
    pool: 'forks',
    // fauxqs uses node:sqlite, which warns on every start under Node 22.
    execArgv: ['--disable-warning=ExperimentalWarning'],
    // Most of an e2e file's time is spent waiting on a stack: four files at a time keep 2 cores busy, also
    // when other work shares the machine.
    maxWorkers: 4,
    // Generous, for a machine other work shares: nothing asserts on time, these only end a hung test.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    reporters: ['default'],
    projects: [
      {
        extends: true,
        // Pure tests share their workers: a fresh process per file cost more than the tests themselves.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], isolate: false },
      },
      {
        extends: true,
        test: {
          name: 'stack',
          include: ['test/**/*.test.ts'],
          exclude: ['test/unit/**'],
          // These files share their workers too: a fresh process per file cost about 2 CPU-s of imports each,
          // a fifth of the run. A file that changes process.env or loads handlers in-process restores both.
          isolate: false,
          // Kills what a failed or timed-out test left running (local stacks, DynamoDB Local JVMs), then starts
          // the run's one shared stack while the Lambda bundles are built for every file
          // (test/support/shared-stack-setup.ts), with the DynamoDB Local of the integration files' tables.
          globalSetup: ['test/support/leftover-processes.ts', 'test/support/shared-stack-setup.ts'],
        },
      },
    ],
  },
});
