import { escapeRegExp } from '../corpus/query.js';
import type { Hit, SearchRun } from '../corpus/search.js';

type Kind = 'repo' | 'lang' | 'file' | 'type' | 'utility';

export interface Filter {
  value: string;
  label: string;
  count: number;
  exhaustive: boolean;
  kind: Kind;
}

/** The server keeps this many repo filters and this many of all other kinds together. */
const MAX_REPOS = 40;
const MAX_OTHER = 40;

const TYPE_LABELS: Record<Hit['type'], [value: string, label: string]> = {
  content: ['type:file', 'Code'],
  path: ['type:path', 'Paths'],
  repo: ['type:repo', 'Repositories'],
  symbol: ['type:symbol', 'Symbols'],
};

/** The server's fixed exclusion filters, proposed when a result's path matches them. */
const EXCLUSIONS: { test: RegExp; value: string; label: string }[] = [
  { test: /_test\.go$/, value: '-file:_test\\.go$', label: 'Exclude Go tests' },
  { test: /(^|\/)vendor\//, value: '-file:(^|/)vendor/', label: 'Exclude Go vendor' },
  { test: /(^|\/)node_modules\//, value: '-file:(^|/)node_modules/', label: 'Exclude node_modules' },
  { test: /\.min\.js$/, value: '-file:\\.min\\.js$', label: 'Exclude minified JavaScript' },
  { test: /\.js\.map$/, value: '-file:\\.js\\.map$', label: 'Exclude JavaScript maps' },
];

/** Ties of equal count: utility, type, lang, file, repo (the documentation's example), then by value. */
const KIND_RANK: Record<Kind, number> = { utility: 0, type: 1, lang: 2, file: 3, repo: 4 };

interface Entry {
  label: string;
  count: number;
  kind: Kind;
}

/** Suggested filters, tallied from every counted hit (displayed or not). */
export class FilterTally {
  /** Set when the list may have changed since `changedList` last ran. */
  dirty = false;
  private readonly entries = new Map<string, Entry>();
  private lastSent = '';

  add(hit: Hit, count: number): void {
    this.dirty = true;
    this.bump(`repo:^${escapeRegExp(hit.repo.name)}$`, hit.repo.name, count, 'repo');
    this.bump(...TYPE_LABELS[hit.type], count, 'type');
    if (hit.type === 'repo') return;
    // A content result whose path matched too is also a path result (the docs' example counts both).
    if (hit.type === 'content' && hit.pathRanges) this.bump(...TYPE_LABELS.path, count, 'type');
    if (hit.language && /\.[^/.]+$/.test(hit.path)) {
      const lang = hit.language.toLowerCase();
      this.bump(`lang:${lang.includes(' ') ? JSON.stringify(lang) : lang}`, hit.language, count, 'lang');
    }
    for (const exclusion of EXCLUSIONS) {
      if (exclusion.test.test(hit.path)) this.bump(exclusion.value, exclusion.label, count, 'file');
    }
  }

  /**
   * The whole current list: utility filters first, then by count; `exhaustive` is false once the run hit
   * a limit or its timeout.
   */
  list(run: SearchRun): Filter[] {
    const exhaustive = !run.limitHit && !run.timedOut;
    const utility: Filter[] = [];
    if (run.excludedArchived > 0) {
      utility.push({ value: 'archived:yes', label: 'Include archived repos', count: run.excludedArchived, exhaustive, kind: 'utility' });
    }
    if (run.excludedForks > 0) {
      utility.push({ value: 'fork:yes', label: 'Include forked repos', count: run.excludedForks, exhaustive, kind: 'utility' });
    }
    const rest = [...this.entries].map(([value, e]): Filter => ({ value, label: e.label, count: e.count, exhaustive, kind: e.kind }));
    const repos = rest.filter((f) => f.kind === 'repo').sort(order).slice(0, MAX_REPOS);
    const other = rest.filter((f) => f.kind !== 'repo').sort(order).slice(0, MAX_OTHER - utility.length);
    return [...utility.sort(order), ...[...repos, ...other].sort(order)];
  }

  /** The list when it changed since the last call that returned one, else undefined. */
  changedList(run: SearchRun): Filter[] | undefined {
    if (!this.dirty) return undefined;
    this.dirty = false;
    const list = this.list(run);
    const text = JSON.stringify(list);
    if (text === this.lastSent) return undefined;
    this.lastSent = text;
    return list;
  }

  private bump(value: string, label: string, count: number, kind: Kind): void {
    const entry = this.entries.get(value);
    if (entry) entry.count += count;
    else this.entries.set(value, { label, count, kind });
  }
}

function order(a: Filter, b: Filter): number {
  return b.count - a.count || KIND_RANK[a.kind] - KIND_RANK[b.kind] || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0);
}
