import type Database from 'better-sqlite3';
import { loadSuite, type LoadedSuite } from '../config/load-suite.js';
import type { ResolvedSuite } from '../config/resolve-suite.js';
import { NothingToCompareError, UsageError } from '../errors/errors.js';
import { resolveRun } from '../report/open.js';
import { planItems, type Subset } from '../runner/plan.js';
import type { PlannedItem } from '../model/item.js';
import type { RunHeader } from '../model/run.js';
import { failedItemKeys } from '../store/rerun.js';
import type { Store } from '../store/store.js';
import { closestName } from './did-you-mean.js';

/**
 * `--only ID` / `--only tag:NAME` (repeatable): the questions and searches with one of those ids or tags.
 * An id or tag the suite does not have is a usage error, with the closest one it has.
 */
export function onlySubset(suite: ResolvedSuite, selectors: readonly string[]): Subset {
  const items = [...suite.questions, ...suite.searches];
  const ids = new Set(items.map((i) => i.id));
  const tags = new Set(items.flatMap((i) => i.tags));
  const wantedIds = new Set<string>();
  const wantedTags = new Set<string>();
  for (const selector of selectors) {
    const tag = /^tag:(.*)$/.exec(selector)?.[1];
    if (tag !== undefined) {
      if (!tags.has(tag)) {
        const near = closestName(tag, tags);
        throw new UsageError(
          `--only ${selector}: no question or search of suite ${suite.name} has the tag "${tag}"` +
            (near !== undefined ? `; did you mean tag:${near}?` : tags.size > 0 ? `; its tags: ${[...tags].sort().join(', ')}` : '; it has no tags'),
        );
      }
      wantedTags.add(tag);
    } else {
      if (!ids.has(selector)) {
        const near = closestName(selector, ids);
        const hint = tags.has(selector) ? `; did you mean tag:${selector} (a tag)?` : near !== undefined ? `; did you mean ${near}?` : '';
        throw new UsageError(`--only ${selector}: suite ${suite.name} has no question or search with the id "${selector}"${hint} (--only takes an id or tag:NAME)`);
      }
      wantedIds.add(selector);
    }
  }
  return {
    only: [...selectors],
    keep: (item: PlannedItem) => wantedIds.has(item.suiteItemId) || item.tags.some((t) => wantedTags.has(t)),
  };
}

/** The items of `--rerun-failed`: the keys taken from the earlier run, narrowed by `--only` when given. */
export function rerunSubset(rerunOf: number, keys: ReadonlySet<string>, only: Subset | undefined): Subset {
  return { rerunOf, only: only?.only, keep: (item) => keys.has(item.key) && (only?.keep(item) ?? true) };
}

/**
 * A resumed run made of part of its plan (`--only`, `--rerun-failed`) keeps the items it planned, whatever
 * the flags say now; `--only` cannot change them.
 */
export function resumedSubset(previous: RunHeader, hasItem: (key: string) => boolean, only: readonly string[]): Subset | undefined {
  const stored = previous.info.options;
  const part = stored.only !== undefined || stored.rerunOf !== undefined;
  if (only.length > 0) {
    throw new UsageError(`--only is fixed when a run starts; resume run ${previous.runId} without it${part ? ' (it keeps the items it planned)' : ''}`);
  }
  if (!part) return undefined;
  return {
    only: stored.only as string[] | undefined,
    rerunOf: stored.rerunOf as number | undefined,
    keep: (item) => hasItem(item.key),
  };
}

/** The run `--resume` or `--rerun-failed` names; one that matches nothing is the user's mistake here (exit 2), not an empty report. */
export function runToResume(db: Database.Database, file: string, selector: string): number {
  try {
    return resolveRun(db, file, selector).id;
  } catch (error) {
    if (error instanceof NothingToCompareError) throw new UsageError(error.message, { cause: error });
    throw error;
  }
}

/** What a rerun is asked with: `--rerun-failed RUN`, `--db`, `--only`. */
export interface RerunArgs {
  db: string;
  rerunFailed?: string | undefined;
  only: readonly string[];
}

/**
 * What `--rerun-failed RUN` runs: RUN (its targets and options), its suite (unchanged since: the items are
 * RUN's), and the items of RUN that failed, erred or did not end, narrowed by `--only`.
 */
export async function rerunOf(store: Store, args: RerunArgs, givenSuite: LoadedSuite | undefined, onlyGiven: Subset | undefined): Promise<{ source: RunHeader; suite: LoadedSuite; subset: Subset }> {
  const source = store.recorder.loadRunInfo(runToResume(store.db, args.db, String(args.rerunFailed))) as RunHeader;
  const suite = givenSuite ?? (await loadSuite(source.info.suitePath));
  if (suite.sha256 !== source.info.suiteHash) {
    throw new UsageError(`the suite ${suite.path} changed since run ${source.runId}: --rerun-failed reruns that run's items of the same suite; start a new run (with --only) instead`);
  }
  const only = onlyGiven ?? (args.only.length > 0 ? onlySubset(suite.resolved, args.only) : undefined);
  return { source, suite, subset: rerunSubset(source.runId, failedItemKeys(store.db, source.runId), only) };
}

/** Whether the rerun has any item: the earlier run's failed items, narrowed by --only. */
export function planHasAny(suite: LoadedSuite, source: RunHeader, subset: Subset | undefined): boolean {
  const repeats = source.info.options.repeats as number | undefined;
  for (const item of planItems(suite.resolved, source.targets.map((t) => t.name), repeats)) if (subset?.keep(item) ?? true) return true;
  return false;
}
