import { escapeRegExp } from '../corpus/query.js';
import { extensionOf } from '../corpus/languages.js';
import type { Hit, SearchRun } from '../corpus/search.js';

export interface Filter {
  value: string;
  label: string;
  count: number;
  exhaustive: boolean;
  kind: 'repo' | 'lang' | 'file' | 'type' | 'utility';
}

/** Entries kept per kind, largest counts first, so a filters event stays small on a big corpus. */
const MAX_PER_KIND = 100;

const TYPE_LABELS: Record<Hit['type'], [value: string, label: string]> = {
  content: ['type:file', 'Code'],
  path: ['type:path', 'Paths'],
  repo: ['type:repo', 'Repositories'],
};

type Tally = Map<string, { label: string; count: number }>;

/** Suggested filters, tallied from every counted hit (displayed or not). */
export class FilterTally {
  /** Whether the list changed since `list()` was last called. */
  changed = false;
  private readonly tallies: Record<'repo' | 'lang' | 'file' | 'type', Tally> = {
    repo: new Map(),
    lang: new Map(),
    file: new Map(),
    type: new Map(),
  };

  add(hit: Hit, count: number): void {
    this.changed = true;
    bump(this.tallies.repo, `repo:^${escapeRegExp(hit.repo.name)}$`, hit.repo.name, count);
    bump(this.tallies.type, ...TYPE_LABELS[hit.type], count);
    if (hit.type === 'repo') return;
    if (hit.language) bump(this.tallies.lang, `lang:${hit.language.toLowerCase()}`, hit.language, count);
    const ext = extensionOf(hit.path);
    if (ext) bump(this.tallies.file, `file:${escapeRegExp(ext)}$`, ext, count);
  }

  /** The whole current list; `exhaustive` is false once the run hit a limit or its timeout. */
  list(run: SearchRun): Filter[] {
    this.changed = false;
    const exhaustive = !run.limitHit && !run.timedOut;
    const filters: Filter[] = [];
    for (const kind of ['repo', 'lang', 'file', 'type'] as const) {
      const entries = [...this.tallies[kind]].sort(([, a], [, b]) => b.count - a.count || (a.label < b.label ? -1 : 1));
      for (const [value, { label, count }] of entries.slice(0, MAX_PER_KIND)) {
        filters.push({ value, label, count, exhaustive, kind });
      }
    }
    for (const [value, count] of [['archived:yes', run.excludedArchived], ['fork:yes', run.excludedForks]] as const) {
      if (count > 0) filters.push({ value, label: value, count, exhaustive, kind: 'utility' });
    }
    return filters;
  }
}

function bump(tally: Tally, value: string, label: string, count: number): void {
  const entry = tally.get(value);
  if (entry) entry.count += count;
  else tally.set(value, { label, count });
}
