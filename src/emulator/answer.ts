import type { SearchHit } from './agent-search.js';
import { definitionScore } from './corpus/agent.js';
import { escapeRegExp } from './corpus/query.js';
import { titleFor, withoutTriggers, type ResearchPlan, type Target } from './research-plan.js';

// How the agent writes its answer from what its searches found: the Markdown, its sources and two follow-ups.

export interface Source {
  type: 'Repository';
  link: string;
  label: string;
}

export interface Answer {
  title: string;
  markdown: string;
  sources: Source[];
  followups: [string, string];
}

const MAX_OTHER_PLACES = 4;
const MAX_KEYWORD_HITS = 3;

export interface TargetFinding {
  target: Target;
  hits: SearchHit[];
}

export interface KeywordFinding {
  keyword: string;
  hits: SearchHit[];
  /** The file the keyword was looked up in, if it was. */
  within?: SearchHit | undefined;
}

export interface Research {
  question: string;
  plan: ResearchPlan;
  targets: TargetFinding[];
  keywords: KeywordFinding[];
  /** Searches run, failed ones included: the `tool_calls` of the answer. */
  searches: number;
  /** Base URL of the links in answers. */
  linkBase: string;
}

/** Where a target is best cited: the first hit that defines it, else the first hit. */
export function mainHit(finding: TargetFinding): { hit: SearchHit; definition: number } | undefined {
  let first: { hit: SearchHit; definition: number } | undefined;
  for (const hit of finding.hits) {
    const definition = finding.target.kind === 'identifier' ? definitionIn(hit.preview, finding.target.text) : 0;
    if (definition >= 2) return { hit, definition };
    first ??= { hit, definition };
  }
  return first;
}

function definitionIn(line: string, identifier: string): number {
  const m = new RegExp(`(?<![\\w$])${escapeRegExp(identifier)}(?![\\w$])`).exec(line);
  return m ? definitionScore(line, m.index, m.index + identifier.length) : 0;
}

/** Builds the Markdown answer, its sources and two follow-ups from what the searches found. */
export function composeAnswer(research: Research): Answer {
  const { question, plan, linkBase } = research;
  const link = links(linkBase, revisionsOf(research));
  const where = plan.repositories.length > 0 ? list(plan.repositories) : 'the indexed repositories';
  const searched = [...research.targets.map((t) => t.target.text), ...research.keywords.map((k) => k.keyword)];
  const quoted = list(searched.map((s) => `\`${s}\``));
  const cited = new Set<string>();
  const citedRepositories: string[] = [];
  const cite = (hit: SearchHit) => {
    cited.add(hitKey(hit));
    if (!citedRepositories.includes(hit.repository)) citedRepositories.push(hit.repository);
  };
  const sections: string[] = [];

  const context = contextSentence(plan, research.targets);
  if (context) sections.push(context);

  let subject: { text: string; repository: string } | undefined;
  for (const finding of research.targets) {
    const main = mainHit(finding);
    const name = `\`${finding.target.text}\``;
    if (!main) {
      sections.push(`I found no occurrence of ${name} in ${where}.`);
      continue;
    }
    subject ??= { text: finding.target.text, repository: main.hit.repository };
    cite(main.hit);
    const verb =
      finding.target.kind === 'path' ? 'is' : main.definition >= 2 ? 'is defined in' : main.definition === 1 ? 'is exported in' : 'is referenced in';
    sections.push(`## ${name}\n\n${name} ${verb} ${link.file(main.hit)} in ${link.repo(main.hit.repository)}${preview(main.hit, ': ')}.${evidence(main.hit)}`);
    const others = finding.hits.filter((h) => !cited.has(hitKey(h))).slice(0, MAX_OTHER_PLACES);
    if (others.length > 0) {
      others.forEach(cite);
      sections.push([`Other places that use ${name}:`, '', ...others.map((h, i) => `${i + 1}. ${link.place(h)}`)].join('\n'));
    }
  }

  const inFile = research.keywords.filter((k) => k.within);
  if (inFile.length > 0) {
    const file = inFile[0]!.within!;
    const found = inFile.filter((k) => k.hits.length > 0);
    const missing = inFile.filter((k) => k.hits.length === 0).map((k) => `\`${k.keyword}\``);
    // Keywords found on the same line share it.
    const byLine = new Map<string, { hit: SearchHit; keywords: string[] }>();
    for (const k of found) {
      const hit = k.hits[0]!;
      const entry = byLine.get(hitKey(hit)) ?? { hit, keywords: [] };
      entry.keywords.push(`\`${k.keyword}\``);
      byLine.set(hitKey(hit), entry);
    }
    const lines = [...byLine.values()].map(({ hit, keywords }) => {
      cite(hit);
      return `- ${list(keywords)}: ${link.file(hit)}${preview(hit, ' ')}`;
    });
    const tail = missing.length > 0 ? `${lines.length > 0 ? '\n\n' : ''}${list(missing)} ${missing.length === 1 ? 'does' : 'do'} not appear in that file.` : '';
    const head = lines.length > 0 ? [`## In \`${file.path}\`\n\nIn ${link.fileOnly(file)}, the parts about ${list(found.map((k) => `\`${k.keyword}\``))}:`, '', ...lines].join('\n') : '';
    sections.push(`${head}${tail}`.trim());
  }

  const across = research.keywords.filter((k) => !k.within && k.hits.length > 0);
  if (across.length > 0) {
    const places: SearchHit[] = [];
    for (const k of across) for (const h of k.hits.slice(0, MAX_KEYWORD_HITS)) if (!cited.has(hitKey(h)) && !places.includes(h)) places.push(h);
    if (places.length > 0) {
      places.forEach(cite);
      const intro = `## Other mentions\n\nPlaces in ${where} that mention ${list(across.map((k) => `\`${k.keyword}\``))}:`;
      sections.push([intro, '', ...places.map((h, i) => `${i + 1}. ${link.place(h)}`)].join('\n'));
      subject ??= { text: across[0]!.keyword, repository: places[0]!.repository };
    }
  }

  const anything = research.targets.some((t) => t.hits.length > 0) || research.keywords.some((k) => k.hits.length > 0);
  const runs = `I ran ${research.searches === 1 ? '1 search' : `${research.searches} searches`} in ${where}, for ${quoted}`;
  let markdown: string;
  if (searched.length === 0) {
    markdown = 'The question names nothing I could search for in the indexed code.';
  } else if (!anything) {
    markdown = [context, `${runs}, and found nothing relevant.`].filter(Boolean).join('\n\n');
  } else {
    markdown = [narration(question, where), '---', ...sections, whereToLook(link, citedHits(research, cited)), `${runs}.`].filter((p) => p !== '').join('\n\n');
  }

  // The repositories searched, then those the answer cites.
  const repositories = [...new Set([...plan.repositories, ...citedRepositories])];
  return {
    title: titleFor(question),
    markdown,
    sources: repositories.map((r) => ({ type: 'Repository', link: `/${r}`, label: r })),
    followups: followupsFor(subject, research),
  };
}

function contextSentence(plan: ResearchPlan, targets: TargetFinding[]): string | undefined {
  const parts: string[] = [];
  if (plan.fromHistory.targets && targets.length > 0) parts.push(list(targets.map((t) => `\`${t.target.text}\``)));
  if (plan.fromHistory.repositories.length > 0) parts.push(list(plan.fromHistory.repositories));
  if (parts.length === 0) return undefined;
  return `Continuing from the earlier question, about ${parts.join(' in ')}.`;
}

function followupsFor(subject: { text: string; repository: string } | undefined, research: Research): [string, string] {
  const identifier = research.targets.find((t) => t.hits.length > 0);
  if (subject && identifier) {
    return [`Which code in ${subject.repository} calls ${subject.text}?`, `How is ${subject.text} tested in ${subject.repository}?`];
  }
  if (subject) {
    return [`Where is ${subject.text} handled in ${subject.repository}?`, `Which functions in ${subject.repository} deal with ${subject.text}?`];
  }
  return ['Which repositories are indexed on this instance?', 'Can you name a function or file to look for?'];
}

/**
 * Links as real answers write them: pinned to the commit the agent read, with the web app's `/r/`
 * prefix and a line range (`/r/<repo>@<sha>/-/blob/<path>?L10-L13`), files without lines, folders
 * (`/-/tree/`), the commit itself (`/-/commit/`), and, in lists of other places, without `/r/`.
 */
function links(linkBase: string, revisions: ReadonlyMap<string, string>) {
  const at = (name: string) => (revisions.has(name) ? `${name}@${revisions.get(name)}` : name);
  const blob = (h: SearchHit, prefix = '/r') => `${linkBase}${prefix}/${at(h.repository)}/-/blob/${h.path}`;
  const repo = (name: string) => `[${name}](${linkBase}/r/${at(name)})`;
  const file = (h: SearchHit, prefix?: string) => `[${h.path}:${h.lineNumber}](${blob(h, prefix)}${lineRange(h)})`;
  return {
    repo,
    file,
    fileOnly: (h: SearchHit) => `[${h.path}](${blob(h)})`,
    place: (h: SearchHit) => `${file(h, '')} in ${repo(h.repository)}${preview(h, ': ')}`,
    folder: (name: string, dir: string) => `[${dir}/](${linkBase}/r/${at(name)}/-/tree/${dir})`,
    commit: (name: string) => {
      const revision = revisions.get(name);
      return revision === undefined ? undefined : `[${name}@${revision.slice(0, 7)}](${linkBase}/${name}/-/commit/${revision})`;
    },
  };
}

/** A hit's lines as real answer links give them: `?L10` or `?L10-L13`. */
function lineRange(h: SearchHit): string {
  return h.endLine !== undefined && h.endLine > h.lineNumber ? `?L${h.lineNumber}-L${h.endLine}` : `?L${h.lineNumber}`;
}

/** A hit's link in the form of real answers: `/r/<repo>[@<rev>]/-/blob/<path>?L10`. */
export function hitLink(linkBase: string, h: SearchHit): string {
  return `${linkBase}/r/${h.revision === undefined ? h.repository : `${h.repository}@${h.revision}`}/-/blob/${h.path}${lineRange(h)}`;
}

/** Each repository's commit, from the hits that name one. */
function revisionsOf(research: Research): Map<string, string> {
  const revisions = new Map<string, string>();
  for (const f of [...research.targets, ...research.keywords]) for (const h of f.hits) if (h.revision !== undefined) revisions.set(h.repository, h.revision);
  return revisions;
}

const NARRATIONS = [
  (where: string) => `Now I have a thorough picture of ${where}. Let me compile the findings.`,
  (where: string) => `I have what I need from ${where}. Let me put the findings together.`,
  () => 'Now I have a clear view of the relevant code. Let me summarize what I found.',
];

/** The agent's narration that opens real answers; chosen by the question, so the same question reads the same. */
function narration(question: string, where: string): string {
  let h = 0;
  for (const ch of withoutTriggers(question)) h = (h * 31 + ch.charCodeAt(0)) >>> 0;
  return NARRATIONS[h % NARRATIONS.length]!(where);
}

/** The cited span as a fenced block, as real answers quote their evidence. */
function evidence(hit: SearchHit): string {
  if (hit.snippet === undefined || hit.snippet.trim() === '') return '';
  const fence = hit.snippet.includes('```') ? '~~~' : '```';
  return `\n\n**Evidence** (lines ${hit.lineNumber}-${hit.endLine ?? hit.lineNumber}):\n\n${fence}\n${hit.snippet}\n${fence}`;
}

/** The hits the answer cites, each once, in the order they were found. */
function citedHits(research: Research, cited: ReadonlySet<string>): SearchHit[] {
  const byKey = new Map<string, SearchHit>();
  for (const f of [...research.targets, ...research.keywords]) for (const h of f.hits) if (cited.has(hitKey(h)) && !byKey.has(hitKey(h))) byKey.set(hitKey(h), h);
  return [...byKey.values()];
}

/** The folders of the cited files and the commits the links are pinned to. */
function whereToLook(link: ReturnType<typeof links>, hits: readonly SearchHit[]): string {
  const folders = [...new Map(hits.filter((h) => h.path.includes('/')).map((h) => [`${h.repository}\u0000${dirOf(h.path)}`, link.folder(h.repository, dirOf(h.path))])).values()];
  const commits = [...new Set(hits.map((h) => h.repository))].map(link.commit).filter((c) => c !== undefined);
  const parts = ['## Where to look'];
  if (folders.length > 0) parts.push(`Folders: ${folders.join(', ')}.`);
  if (commits.length > 0) parts.push(`Links are pinned to ${list(commits)}.`);
  return parts.length > 1 ? parts.join('\n\n') : '';
}

function dirOf(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}

function preview(hit: SearchHit, separator: string): string {
  const text = hit.preview.replace(/`/g, "'").trim();
  return text === '' ? '' : `${separator}\`${text}\``;
}

function hitKey(hit: SearchHit): string {
  return `${hit.repository}\u0000${hit.path}\u0000${hit.lineNumber}`;
}

function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
