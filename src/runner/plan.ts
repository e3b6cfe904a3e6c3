import type { ResolvedQuestion, ResolvedSearch, ResolvedSuite } from '../config/resolve-suite.js';
import { questionDefinitionHash, searchDefinitionHash } from '../config/definition-hash.js';
import { planTooLarge } from '../config/suite-size.js';
import { UsageError } from '../errors/errors.js';
import type { PlannedItem } from '../model/item.js';

export type WorkItem =
  | (PlannedItem & { kind: 'question'; question: ResolvedQuestion })
  | (PlannedItem & { kind: 'search'; search: ResolvedSearch });

/** Stable identity of a work item: never a position, so a resumed run finds the same keys. */
export function itemKey(target: string, kind: 'question' | 'search', id: string, repeat: number): string {
  return `${target}/${kind}/${id}/${repeat}`;
}

/**
 * Suite x targets x repeats, as a list. Repeat 0 of every item comes before repeat 1 of any, so a run cut
 * short still covers the whole suite once.
 */
export function planRun(suite: ResolvedSuite, targets: readonly string[], repeatsOverride?: number): WorkItem[] {
  return [...planItems(suite, targets, repeatsOverride)];
}

/**
 * The same plan, made item by item each time it is iterated: a run of 100,000 items holds none of them
 * until it takes them (about 25 MB of items otherwise, from the first second to the last).
 */
export function planItems(suite: ResolvedSuite, targets: readonly string[], repeatsOverride?: number): Iterable<WorkItem> {
  const tooLarge = planTooLarge(suite, targets.length, repeatsOverride);
  if (tooLarge) throw new UsageError(tooLarge);
  const repeatsOf = (own: number) => repeatsOverride ?? own;
  // A loop, not Math.max(...list): spreading 130,000 arguments overflows the stack.
  let most = 0;
  for (const item of [suite.questions, suite.searches].flat()) most = Math.max(most, repeatsOf(item.repeats));
  // Once per suite item, not per repeat and target.
  const questionHashes = new Map(suite.questions.map((q) => [q, questionDefinitionHash(q)]));
  const searchHashes = new Map(suite.searches.map((s) => [s, searchDefinitionHash(s)]));
  return {
    *[Symbol.iterator]() {
      for (let repeat = 0; repeat < most; repeat++) {
        for (const target of targets) {
          for (const question of suite.questions) {
            if (repeat >= repeatsOf(question.repeats)) continue;
            const key = itemKey(target, 'question', question.id, repeat);
            yield { key, kind: 'question', target, suiteItemId: question.id, repeat, tags: question.tags, definitionHash: questionHashes.get(question), question };
          }
          for (const search of suite.searches) {
            if (repeat >= repeatsOf(search.repeats)) continue;
            const key = itemKey(target, 'search', search.id, repeat);
            yield { key, kind: 'search', target, suiteItemId: search.id, repeat, tags: search.tags, definitionHash: searchHashes.get(search), search };
          }
        }
      }
    },
  };
}

/**
 * A part of the plan a run is made of: `--only`, `--rerun-failed`, or a resumed run of such a part. How it
 * was chosen is stored with the run's options; a resume keeps the items the run planned.
 */
export interface Subset {
  keep: (item: PlannedItem) => boolean;
  /** `--only` selectors, as given. */
  only?: string[] | undefined;
  /** `--rerun-failed`: the run whose failed items these are. */
  rerunOf?: number | undefined;
  /** `dsbench confirm`: the run whose questions these re-ask. */
  confirmOf?: number | undefined;
}

/** The items of `plan` that `keep` keeps, made as they are iterated as the plan is. */
export function planPart(plan: Iterable<WorkItem>, keep: (item: PlannedItem) => boolean): Iterable<WorkItem> {
  return {
    *[Symbol.iterator]() {
      for (const item of plan) if (keep(item)) yield item;
    },
  };
}
