import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * Test files that need modules of their own: what importing the CLI does, and redact() with no secrets
 * registered (other files' clients register their tokens in the process-wide list).
 */
const ISOLATED = ['test/cli/run-cli.test.ts', 'test/redact.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // GitHub's workflow parser imports its schema as JSON without an import attribute, which Node's own loader
    // refuses: vitest transforms it instead (test/examples/ci-schemas.test.ts).
    server: { deps: { inline: ['@actions/workflow-parser'] } },
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
          // undici again for each of 130 files was a quarter of the suite's CPU. Each file stops the
          // emulators and servers it started; what modules hold for the whole process (registered secrets,
          // the emulator corpus's caches by path and stat) changes no other file's results.
          isolate: false,
          // Builds the CLI once for the test files that run it as a child process.
          globalSetup: ['test/global-setup.ts'],
        },
      },
      { extends: true, test: { name: 'isolated', include: ISOLATED } },
    ],
  },
});
