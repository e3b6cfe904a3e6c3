import { lineCount, linksIn, type RepositoryLink } from '../answer-links.js';
import type { Corpus } from './corpus/corpus.js';
import { readRaw } from './corpus/raw.js';

/** Prompt words that make the emulated judge misbehave, so tests can reach every failure of a real one. */
export const JUDGE_TRIGGERS = {
  prose: '[[judge-prose]]',
  refuse: '[[judge-refuse]]',
} as const;

const PASS_SCORE = 0.6;
const TERM_WEIGHT = 0.7;
const MAX_TERMS = 20;
const FALLBACK_STOP = new Set(
  'about after answer before being cites could every explain explains files found their there these thing those through under where which while whose would should mention mentions names'.split(' '),
);

/**
 * A deterministic stand-in for the instance's model as a judge. It reads the sections of dsbench's
 * prompt (`<rubric>`, `<reference>`, `<answer>`, or `<answer_a>`/`<answer_b>` for a pairwise verdict)
 * and scores an answer by the share of the terms the rubric and reference name that it contains
 * (70%) and the share of its citations that resolve in the corpus (30%).
 */
export async function judgeReply(prompt: string, corpus: Corpus): Promise<string> {
  if (prompt.includes(JUDGE_TRIGGERS.prose)) return 'The answer looks reasonable overall and mentions the right code, so I would rate it as good.';
  if (prompt.includes(JUDGE_TRIGGERS.refuse)) return "I'm sorry, but I can't help with that request.";
  const expected = [section(prompt, 'rubric'), section(prompt, 'reference')].filter((s): s is string => s !== undefined).join('\n');
  const a = section(prompt, 'answer_a');
  const b = section(prompt, 'answer_b');
  if (a !== undefined && b !== undefined) {
    const [sa, sb] = await Promise.all([score(a, expected, corpus), score(b, expected, corpus)]);
    const winner = Math.abs(sa.score - sb.score) < 0.05 ? 'tie' : sa.score > sb.score ? 'A' : 'B';
    return JSON.stringify({ winner, reasons: [`answer A scores ${sa.score}, answer B ${sb.score}`, ...sa.reasons.map((r) => `A: ${r}`), ...sb.reasons.map((r) => `B: ${r}`)] });
  }
  const answer = section(prompt, 'answer');
  if (answer === undefined) return 'Please give me an answer to grade between <answer> tags.';
  const verdict = await score(answer, expected, corpus);
  return JSON.stringify({ score: verdict.score, pass: verdict.score >= PASS_SCORE, reasons: verdict.reasons });
}

function section(prompt: string, tag: string): string | undefined {
  const m = new RegExp(`<${tag}>\\n?([\\s\\S]*?)\\n?</${tag}>`).exec(prompt);
  return m?.[1];
}

async function score(answer: string, expected: string, corpus: Corpus): Promise<{ score: number; reasons: string[] }> {
  if (answer.trim() === '') return { score: 0, reasons: ['the answer is empty'] };
  const terms = namedTerms(expected);
  const lower = answer.toLowerCase();
  const missing = terms.filter((t) => !lower.includes(t.toLowerCase()));
  const recall = terms.length === 0 ? 1 : (terms.length - missing.length) / terms.length;
  // Commits are not citations of code; folders and files are.
  const citations = linksIn(answer).filter((l) => l.kind !== 'commit');
  const valid = (await Promise.all(citations.map((c) => resolves(c, corpus)))).filter(Boolean).length;
  const validity = citations.length === 0 ? 1 : valid / citations.length;
  const reasons = [
    terms.length === 0
      ? 'the rubric and reference name nothing to look for'
      : `names ${terms.length - missing.length} of ${terms.length} expected terms${missing.length > 0 ? ` (missing: ${missing.slice(0, 5).join(', ')})` : ''}`,
    citations.length === 0 ? 'cites nothing' : `${valid} of ${citations.length} citations resolve`,
  ];
  return { score: Math.round((TERM_WEIGHT * recall + (1 - TERM_WEIGHT) * validity) * 100) / 100, reasons };
}

/** Code spans and code-looking words (camelCase, snake_case, dotted, paths); else the longer plain words. */
function namedTerms(text: string): string[] {
  const terms = new Map<string, string>();
  const add = (t: string) => {
    const clean = t.trim().replace(/\(\)$/, '');
    if (clean.length >= 2 && !terms.has(clean.toLowerCase())) terms.set(clean.toLowerCase(), clean);
  };
  const rest = text.replace(/`([^`\n]+)`/g, (_, code: string) => {
    add(code);
    return ' ';
  });
  for (const m of rest.matchAll(/[A-Za-z_$][\w$]*(?:[./-][\w$]+)*/g)) {
    const w = m[0];
    if (/[a-z0-9][A-Z]|_|\$/.test(w) || /[./]/.test(w)) add(w);
  }
  if (terms.size === 0) {
    for (const m of rest.matchAll(/[A-Za-z]{5,}/g)) if (!FALLBACK_STOP.has(m[0].toLowerCase())) add(m[0]);
  }
  return [...terms.values()].slice(0, MAX_TERMS);
}

async function resolves(c: RepositoryLink, corpus: Corpus): Promise<boolean> {
  const entry = await readRaw(corpus, c.revision === undefined ? c.repository : `${c.repository}@${c.revision}`, c.path ?? '');
  if (!entry) return false;
  if (c.kind === 'directory') return entry.kind === 'dir';
  if (c.startLine === undefined) return true;
  if (entry.kind !== 'file') return false;
  return (c.endLine ?? c.startLine) <= lineCount(entry.text) && c.startLine >= 1;
}
