import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Kills what a failed or timed-out test left running (local stacks, DynamoDB Local JVMs).
    globalSetup: ['test/support/leftover-processes.ts'],
    // Each integration/e2e file starts its own emulators (one JVM each): two at a time fits 2 cores.
    pool: 'forks',
    // fauxqs uses node:sqlite, which warns on every start under Node 22.
    execArgv: ['--disable-warning=ExperimentalWarning'],
    maxWorkers: 2,
    // Generous, for a machine other work shares: nothing asserts on time, these only end a hung test.
    testTimeout: 180_000,
    hookTimeout: 300_000,
    reporters: ['default'],
  },
});
