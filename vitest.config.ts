import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Builds the CLI once for the test files that run it as a child process.
    globalSetup: ['test/global-setup.ts'],
    // Most test files wait on child processes and time-scaled emulators rather than compute, so one worker
    // more than the cores keeps them busy (vitest's default, cores - 1, ran the suite one file at a time on
    // 2 cores).
    maxWorkers: availableParallelism() + 1,
  },
});
