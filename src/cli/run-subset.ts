import type { ResolvedSuite } from '../config/suite.js';
import { UsageError } from '../http/errors.js';
import type { Subset } from '../runner/plan.js';
import type { PlannedItem, RunHeader } from '../runner/recorder.js';
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
