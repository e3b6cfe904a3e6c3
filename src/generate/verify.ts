import { parseDocument } from 'yaml';
import type { Provenance } from '../config/generated-schema.js';
import type { Question } from '../config/suite.js';
import { isSourcePath } from './fair.js';
import { referenceOf, usageFiles } from './generate.js';
import { IncompleteSearchError } from '../errors/errors.js';
import type { IndexSearch } from './index-search.js';

/** One generated question whose expectations no longer hold, and how `--update` rewrites it. */
export interface StaleQuestion {
  id: string;
  /** What changed, for people: "file moved: a.js -> b.js". */
  changes: string[];
  /** Edits of the question's node; `remove` drops the question (its symbol is gone). */
  edit: { remove: true } | { set: Array<[path: Array<string | number>, value: unknown]> };
}

export interface Verification {
  /** Generated questions checked. */
  checked: number;
  stale: StaleQuestion[];
  /** Questions whose search could not vouch for anything (it hit a limit): not updated. */
  unverified: Array<{ id: string; why: string }>;
  /** Changes that move no expectation (a definition's line, when no reference names it): rewritten by --update. */
  notes: StaleQuestion[];
}

/**
 * Runs each generated question's query again (its `generated.query`) and compares what the index says now
 * with the question's expectations: a definition's file and symbol, a usage question's files, a count.
 */
export async function verifySuite(questions: readonly Question[], search: IndexSearch): Promise<Verification> {
  const out: Verification = { checked: 0, stale: [], unverified: [], notes: [] };
  for (const q of questions) {
    const g = q.generated;
    if (!g) continue;
    out.checked++;
    try {
      const found = g.kind === 'definition' ? await definitionChanges(q, g, search) : await filesChanges(q, g, search);
      if (found) (found.stale ? out.stale : out.notes).push(found.question);
    } catch (error) {
      if (!(error instanceof IncompleteSearchError)) throw error;
      out.unverified.push({ id: q.id, why: error.message });
    }
  }
  return out;
}

async function definitionChanges(q: Question, g: Provenance, search: IndexSearch): Promise<{ question: StaleQuestion; stale: boolean } | undefined> {
  // Counted as generation counts them: definitions in source (a type declaration is not a second answer).
  const defs = (await search.symbolsOf(g.query)).filter((s) => s.name === g.symbol && s.repository === g.repository && isSourcePath(s.path));
  if (defs.length === 0) return { stale: true, question: { id: q.id, changes: [`symbol gone: ${g.repository} no longer defines \`${g.symbol}\``], edit: { remove: true } } };
  if (defs.length > 1) {
    const where = defs.map((d) => `${d.path}:${d.line}`).join(', ');
    return { stale: true, question: { id: q.id, changes: [`symbol now defined ${defs.length} times (${where}): no single right answer`], edit: { remove: true } } };
  }
  const now = defs[0]!;
  const was = g.match;
  if (was && was.path === now.path && was.line === now.line) return undefined;
  const set: Array<[Array<string | number>, unknown]> = [
    [['generated', 'match'], { path: now.path, line: now.line, kind: now.kind, ...(now.containerName && { containerName: now.containerName }) }],
    [['generated', 'revision'], now.revision],
  ];
  const changes: string[] = [];
  const cites = q.expect?.cites;
  const movedFile = was !== undefined && was.path !== now.path;
  if (movedFile) {
    changes.push(`file moved: ${was.path} -> ${now.path}`);
    if (cites) set.push([['expect', 'cites'], cites.map((c) => (c === was.path ? now.path : c))]);
  } else {
    changes.push(`definition moved: ${now.path} line ${was?.line ?? '?'} -> ${now.line}`);
  }
  const reference = q.expect?.reference;
  if (reference !== undefined) set.push([['expect', 'reference'], referenceOf(now)]);
  return { stale: movedFile || reference !== undefined, question: { id: q.id, changes, edit: { set } } };
}

async function filesChanges(q: Question, g: Provenance, search: IndexSearch): Promise<{ question: StaleQuestion; stale: boolean } | undefined> {
  const { files, revision } = await search.filesOf(g.query, g.repository);
  if (g.kind === 'count') {
    const expected = q.expect?.number?.expected;
    if (expected === files.length) return undefined;
    return {
      stale: true,
      question: { id: q.id, changes: [`count changed: ${expected} -> ${files.length} files`], edit: { set: [[['expect', 'number', 'expected'], files.length], [['generated', 'revision'], revision]] } },
    };
  }
  const now = usageFiles(files, g.match?.path ?? '');
  const was = q.expect?.citesRecall?.files ?? [];
  const added = now.filter((f) => !was.includes(f));
  const removed = was.filter((f) => !now.includes(f));
  if (added.length + removed.length === 0) return undefined;
  const changes = [`files changed:${added.map((f) => ` +${f}`).join('')}${removed.map((f) => ` -${f}`).join('')}`];
  if (now.length === 0) return { stale: true, question: { id: q.id, changes: [...changes, 'no file uses it any more'], edit: { remove: true } } };
  return { stale: true, question: { id: q.id, changes, edit: { set: [[['expect', 'citesRecall', 'files'], now], [['generated', 'revision'], revision]] } } };
}

/** The suite's text with the edits applied, comments and layout kept where nothing changed. */
export function applyEdits(text: string, questions: readonly Question[], edits: readonly StaleQuestion[]): string {
  const doc = parseDocument(text);
  const index = new Map(questions.map((q, i) => [q.id, i]));
  const removals: number[] = [];
  for (const e of edits) {
    const i = index.get(e.id);
    if (i === undefined) continue;
    if ('remove' in e.edit) removals.push(i);
    else for (const [path, value] of e.edit.set) doc.setIn(['questions', i, ...path], doc.createNode(value));
  }
  for (const i of removals.sort((a, b) => b - a)) doc.deleteIn(['questions', i]);
  return doc.toString({ lineWidth: 0 });
}

