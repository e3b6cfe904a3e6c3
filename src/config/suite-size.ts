import type { ResolvedSuite } from './resolve-suite.js';

// Bounds that keep loading and planning in bounded memory: past them a suite is refused up front with
// the number that is too large, instead of running out of memory part-way.

/**
 * Largest suite file read. Loading takes about 100 bytes of memory per byte of YAML (2.3 MB: 310 MB peak,
 * 8.2 MB: 800 MB), so 16 MB stays near 1.5 GB; a 130,000-question suite is about 14 MB.
 */
export const MAX_SUITE_BYTES = 16 * 1024 * 1024;
/** Most items (question or search runs, over repeats and targets) one run plans. */
export const MAX_PLANNED_ITEMS = 2_000_000;

const fmt = (n: number): string => n.toLocaleString('en-US');

/** Items a run of `suite` plans on `targets` targets, every item at its own repeats or at `repeatsOverride`. */
export function plannedItems(suite: ResolvedSuite, targets: number, repeatsOverride?: number): number {
  let perTarget = 0;
  for (const q of suite.questions) perTarget += repeatsOverride ?? q.repeats;
  for (const s of suite.searches) perTarget += repeatsOverride ?? s.repeats;
  return perTarget * targets;
}

/** Why a plan is too large (the numbers that make it so), or undefined when it is not. */
export function planTooLarge(suite: ResolvedSuite, targets: number, repeatsOverride?: number): string | undefined {
  const planned = plannedItems(suite, targets, repeatsOverride);
  if (planned <= MAX_PLANNED_ITEMS) return undefined;
  const items = `${fmt(suite.questions.length)} question${suite.questions.length === 1 ? '' : 's'} and ${fmt(suite.searches.length)} search${suite.searches.length === 1 ? '' : 'es'}`;
  const repeats = repeatsOverride !== undefined ? `repeats ${fmt(repeatsOverride)}` : 'their repeats';
  return (
    `the run would plan ${fmt(planned)} items (${items} x ${repeats} x ${fmt(targets)} target${targets === 1 ? '' : 's'}); ` +
    `one run plans at most ${fmt(MAX_PLANNED_ITEMS)}: lower repeats or split the suite`
  );
}
