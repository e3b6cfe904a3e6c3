// The README's own commands, as a newcomer types them after the quick start: the `npx dsbench` lines of the sh
// blocks of "Quick start", "Reading results" and "Nightly use in CI". Three test files run them, each a part
// that needs nothing of the others, so they run side by side: test/readme.test.ts (the commands that read the
// results database, after the runs "Reading results" says to record), test/readme-quick-start.test.ts (those
// that do not) and test/readme-nightly.test.ts (the nightly flow, in order, on a database of its own).
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { ROOT } from './cli.js';

/** The `npx dsbench ...` lines of the sh blocks of one README section, comments removed, words split. */
export function commandsOf(section: string): string[][] {
  const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`## ${section}\n`);
  expect(start, section).toBeGreaterThanOrEqual(0);
  const body = readme.slice(start, readme.indexOf('\n## ', start + 3));
  const lines = [...body.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'));
  return lines
    .filter((l) => l.startsWith('npx dsbench '))
    .map((l) => l.replace(/\s+#.*$/, ''))
    .map((l) => [...l.slice('npx dsbench '.length).matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!));
}

/** Commands that read the results database and nothing else: given `--db` and run after the recorded runs. */
export const OFFLINE = ['runs', 'report', 'compare'];

/**
 * The commands of "Quick start" and "Reading results" but the runs "Reading results" records first:
 * `offline` read the database those runs fill, `online` do not (asking the embedded emulator, help).
 */
export function readingCommands(): { offline: string[][]; online: string[][] } {
  const commands = [...commandsOf('Quick start'), ...commandsOf('Reading results')].filter((c) => c[0] !== 'run');
  expect(commands.length).toBeGreaterThanOrEqual(9);
  return { offline: commands.filter((c) => OFFLINE.includes(c[0]!)), online: commands.filter((c) => !OFFLINE.includes(c[0]!)) };
}

/** The embedded emulator sped up, for commands that start it without run's flag. */
export const FAST = { DSBENCH_EMULATOR_TIME_SCALE: '0.001' };
/** What a README `run` line gets besides its own words: the test's database, quiet output, a sped-up emulator. */
export const runFlags = (db: string) => ['--db', db, '--reporter', 'quiet', '--emulator-time-scale', '0.02'];
