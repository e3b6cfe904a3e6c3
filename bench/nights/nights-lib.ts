import { connectionFor } from '../../src/config/credentials.js';
import type { LoadedSuite } from '../../src/config/load-suite.js';
import { type RunningEmulator, startEmulator, type SearchHit } from '../../src/emulator/index.js';
import { REALISTIC, ServiceNoise, type NoiseOptions } from '../../src/emulator/noise.js';
import type { RunTarget } from '../../src/runner/item-context.js';
import { executeRun } from '../../src/runner/run.js';
import { openStore } from '../../src/store/index.js';

// What the nights benchmark's modes share: the suite, one night on its own emulator, Wilson intervals.

export const SERVICE = 'nights-bench';
export const TIME_SCALE = 2e-5;
const START = '2026-01-05T03:00:00Z';

export const SCENARIOS: Record<string, NoiseOptions['regression'] | null> = {
  null: null,
  'errors 4% -> 30%': { tokenLimitRate: 0.29 },
  'flaky questions always fail': { flakyGroundedRate: 0 },
  'latency x1.6': { latencyFactor: 1.6 },
};

/** Every query finds two files: a grounded answer always has links; only the noise takes them away. */
const search = async (query: string): Promise<SearchHit[]> => [
  { repository: 'github.com/acme/api', path: `src/${query.replace(/\W+/g, '_')}.ts`, lineNumber: 10, preview: `export function ${query}() {` },
  { repository: 'github.com/acme/lib', path: 'lib/policy.ts', lineNumber: 3, preview: `${query}()` },
];

/** `questions` questions of which exactly `flakyCount` are flaky for this service. */
export function suiteText(questions: number, flakyCount: number, repeats: number): string {
  const noise = new ServiceNoise(REALISTIC, SERVICE, 0);
  const flaky: string[] = [];
  const stable: string[] = [];
  for (let i = 0; flaky.length < flakyCount || stable.length < questions - flakyCount; i++) {
    const text = `Where is handler${i} implemented, and what does it retry?`;
    if (noise.flaky(text)) {
      if (flaky.length < flakyCount) flaky.push(text);
    } else if (stable.length < questions - flakyCount) stable.push(text);
  }
  const lines = [...flaky, ...stable].map((q, i) => `  - id: q${String(i).padStart(2, '0')}\n    question: "${q}"\n    expect: { matches: ["/-/blob/"] }`);
  return `name: nights\ndefaults: { api: versioned, repeats: ${repeats}, concurrency: 60, timeout: 15m }\nquestions:\n${lines.join('\n')}\n`;
}

/** One night's service: an emulator with its own seed (and the regression, if any), on `port` (0: any). */
export function nightService(seed: string, regression: NoiseOptions['regression'] | null, port = 0): Promise<RunningEmulator> {
  return startEmulator({ port, seed, timeScale: TIME_SCALE, startTime: START, noise: { profile: 'realistic', serviceSeed: SERVICE, regression: regression ?? {} } }, { search });
}

export function nightTarget(emulator: RunningEmulator): RunTarget {
  return { name: 'instance', connection: connectionFor(emulator.url, 'sgp_emulator_admin_token', {}), emulated: false, timeScale: TIME_SCALE };
}

export const NEVER = new AbortController().signal;
export const RETRY = { baseDelayMs: 1, maxDelayMs: 20 };

/** A night's run against a running service (`repeats`: in place of the suite's); returns the run's id. */
export async function runNight(suite: LoadedSuite, db: string, emulator: RunningEmulator, repeats?: number): Promise<number> {
  const store = openStore(db);
  try {
    const result = await executeRun({ suite, targets: [nightTarget(emulator)], recorder: store.recorder, observers: [], label: 'nightly', onQuota: 'continue', maxQuotaWaitMs: 0, cleanup: false, stop: NEVER, abort: NEVER, retry: RETRY, ...(repeats === undefined ? {} : { repeats }) });
    return result.runId;
  } finally {
    store.close();
  }
}

/** A night on its own emulator, stopped after it. */
export async function night(suite: LoadedSuite, db: string, seed: string, regression: NoiseOptions['regression'] | null): Promise<number> {
  const emulator = await nightService(seed, regression);
  try {
    return await runNight(suite, db, emulator);
  } finally {
    await emulator.stop();
  }
}

export { wilson } from './wilson.js';
