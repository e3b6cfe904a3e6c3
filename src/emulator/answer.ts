import type { SearchHit } from './agent.js';

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

const STOP_WORDS = new Set(
  (
    'about also and are can could does did for from has have how into its not of on or the ' +
    'that their then there these this those to was what when where which while who why will ' +
    'with would implemented implement defined define used use uses using work works code file ' +
    'files function functions find show explain repository repo'
  ).split(' '),
);

const MAX_LISTED_HITS = 8;
const MAX_TITLE_CHARS = 60;

/** Identifiers (camelCase, snake_case, dotted or path-like) first, then longer words. */
export function deriveQueries(question: string, max: number): string[] {
  const words = question
    .replace(/\[\[[^\]]*\]\]/g, ' ')
    .match(/[A-Za-z_$][\w$.\/-]*/g);
  const seen = new Set<string>();
  const candidates: Array<{ word: string; identifier: boolean; order: number }> = [];
  for (const raw of words ?? []) {
    const word = raw.replace(/[.\/-]+$/, '');
    const lower = word.toLowerCase();
    if (word.length < 3 || STOP_WORDS.has(lower) || seen.has(lower)) continue;
    seen.add(lower);
    const identifier = /[a-z][A-Z]|[_.$\/]/.test(word);
    candidates.push({ word, identifier, order: candidates.length });
  }
  candidates.sort(
    (a, b) =>
      Number(b.identifier) - Number(a.identifier) || b.word.length - a.word.length || a.order - b.order,
  );
  return candidates.slice(0, max).map((c) => c.word);
}

export function titleFor(question: string): string {
  const clean = question.replace(/\[\[[^\]]*\]\]/g, ' ').replace(/\s+/g, ' ').trim().replace(/[?.!]+$/, '');
  if (clean === '') return 'Untitled question';
  const title = clean.length > MAX_TITLE_CHARS ? `${clean.slice(0, MAX_TITLE_CHARS - 1).trimEnd()}…` : clean;
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/** Builds the Markdown answer, sources and follow-ups from what the searches found. */
export function composeAnswer(question: string, queries: string[], hits: SearchHit[], linkBase: string): Answer {
  const title = titleFor(question);
  const quoted = queries.map((q) => `\`${q}\``).join(', ');
  if (hits.length === 0) {
    const markdown =
      queries.length === 0
        ? 'The question names nothing I could search for in the indexed code.'
        : `I searched the indexed repositories for ${quoted} and found nothing relevant.`;
    return {
      title,
      markdown,
      sources: [],
      followups: ['Which repositories are indexed on this instance?', 'Can you name a function or file to look for?'],
    };
  }
  const lines = hits.slice(0, MAX_LISTED_HITS).map((hit, i) => {
    const file = `${linkBase}/${hit.repository}/-/blob/${hit.path}#L${hit.lineNumber}`;
    const repo = `${linkBase}/${hit.repository}`;
    const preview = hit.preview.replace(/`/g, "'").trim();
    return `${i + 1}. [${hit.path}:${hit.lineNumber}](${file}) in [${hit.repository}](${repo})${preview ? `: \`${preview}\`` : ''}`;
  });
  const top = queries[0] ?? hits[0]?.path ?? 'this';
  const markdown = [`I searched the indexed repositories for ${quoted}. The most relevant places:`, '', ...lines].join(
    '\n',
  );
  const repositories = [...new Set(hits.map((h) => h.repository))];
  return {
    title,
    markdown,
    sources: repositories.map((r) => ({ type: 'Repository', link: `/${r}`, label: r })),
    followups: [`Where is ${top} tested?`, `Which code calls ${top}?`],
  };
}
