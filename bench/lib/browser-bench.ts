// What the browser benchmarks (bench/html, bench/view) share: their arguments, medians with their spread,
// the load average, and the chromium they drive.
import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export interface BenchArgs {
  /** Items of the generated run: the first bare number, default 100,000. */
  items: number;
  /** `--rounds N`, default 5. */
  rounds: number;
  /** The value after `--name`, if given. */
  option(name: string): string | undefined;
}

export function benchArgs(argv: readonly string[] = process.argv.slice(2)): BenchArgs {
  const option = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    return at >= 0 ? argv[at + 1] : undefined;
  };
  // The item count is a bare number that is not an option's value (`--rounds 9` is not 9 items).
  const items = argv.find((a, i) => /^\d+$/.test(a) && !argv[i - 1]?.startsWith('--'));
  return { items: Number(items ?? 100_000), rounds: Number(option('rounds') ?? 5), option };
}

export const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** `median unit (min-max)`. */
export const spread = (values: readonly number[], unit: string, digits = 0): string =>
  `${median(values).toFixed(digits)} ${unit} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;

/** The load average over 1, 5 and 15 minutes. */
export const load = (): string =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/** Debian's chromium (or CHROMIUM_PATH); a benchmark cannot run without it. */
export function chromiumPath(): string {
  const found = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => p && statSync(p, { throwIfNoEntry: false }));
  if (!found) throw new Error('no chromium: install it (apt-get install chromium) or set CHROMIUM_PATH');
  return found;
}

/** A headless chromium with a profile in `dir`; `extra` adds command-line switches. */
export function launchBrowser(executable: string, dir: string, extra: string[] = []): Promise<BrowserContext> {
  return chromium.launchPersistentContext(path.join(dir, 'profile'), {
    executablePath: executable,
    headless: true,
    viewport: { width: 1400, height: 1000 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extra],
  });
}
