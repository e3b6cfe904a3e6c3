import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/** Test files that need modules of their own: what importing one does is what they check. */
const ISOLATED = ['test/cli/run-cli.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Most test files wait on child processes and time-scaled emulators rather than compute, so one worker
    // more than the cores keeps them busy (vitest's default, cores - 1, ran the suite one file at a time on
    // 2 cores).
    maxWorkers: availableParallelism() + 1,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['test/**/*.test.ts'],
          exclude: ISOLATED,
          // A worker keeps the modules it imported for the next test file: importing the sources, zod and
          // undici again for each of 130 files was a quarter of the suite's CPU. No test changes what a
          // module holds for another (each cleans up its emulators, servers and folders).
          isolate: false,
          // Builds the CLI once for the test files that run it as a child process.
          globalSetup: ['test/global-setup.ts'],
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
    ],
  },
});
