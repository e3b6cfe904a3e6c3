// Answers and what was said of them: word-level differences between two answers, sources, the judge's
// grades and the checked citations.
import type { SideGrade, TurnGrading } from './data.js';
import { el, fmtNum } from './dom.js';

/** A run of text, changed (1) or not (0). */
type Part = [0 | 1, string];

function tokens(text: string, byLine: boolean): string[] {
  return byLine ? text.split(/(\n)/) : text.split(/(\s+)/);
}

/** Word-level differences (longest common subsequence); long answers are compared by lines; null when too long. */
export function diff(a: string, b: string): [Part[], Part[]] | null {
  const byLine = a.length + b.length > 40000;
  const x = tokens(a, byLine);
  const y = tokens(b, byLine);
  if (x.length * y.length > 4e6) return null;
  const n = x.length;
  const m = y.length;
  const w = m + 1;
  // t[i * w + j]: the length of the longest common subsequence of x from i and y from j.
  const t = new Uint32Array((n + 1) * w);
  const at = (k: number) => t[k] as number;
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) t[i * w + j] = x[i] === y[j] ? at((i + 1) * w + j + 1) + 1 : Math.max(at((i + 1) * w + j), at(i * w + j + 1));
  const left: Part[] = [];
  const right: Part[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      left.push([0, x[i] as string]);
      right.push([0, y[j] as string]);
      i++;
      j++;
    } else if (j < m && (i >= n || at(i * w + j + 1) >= at((i + 1) * w + j))) {
      right.push([1, y[j] as string]);
      j++;
    } else {
      left.push([1, x[i] as string]);
      i++;
    }
  }
  return [left, right];
}

/** An answer with its changed words marked by `tag` (del or ins). */
export function answerNode(parts: Part[], tag: 'del' | 'ins'): HTMLDivElement {
  const node = el('div', { className: 'answer' });
  parts.forEach((p) => node.appendChild(p[0] && /\S/.test(p[1]) ? el(tag, { text: p[1] }) : document.createTextNode(p[1])));
  return node;
}

export function listNode(items: string[] | null | undefined): HTMLElement {
  return items && items.length ? el('ul', { className: 'plain' }, items.map((s) => el('li', { text: s }))) : el('p', { className: 'muted', text: 'none' });
}

/** The judge's grades of one turn with their reasons, and every citation checked with its status. */
export function gradingNode(g: TurnGrading): HTMLDivElement {
  const box = el('div', { className: 'grading' });
  g.grades.forEach((x) => {
    box.appendChild(el('p', { className: x.passed ? 'good' : 'bad', text: 'Judge (' + x.spec + '): ' + (x.score == null ? x.status : 'score ' + fmtNum(x.score, 2) + (x.passed ? ' >= ' : ' < ') + fmtNum(x.minScore, 2)) + (x.error ? ': ' + x.error : '') }));
    if (x.reasons.length) box.appendChild(listNode(x.reasons));
  });
  if (g.citations.length) {
    box.appendChild(el('h4', { text: 'Citations (' + g.citations.filter((c) => c.status === 'valid').length + ' of ' + g.citations.length + ' valid)' }));
    box.appendChild(el('ul', { className: 'plain citations' }, g.citations.map((c) =>
      el('li', {}, [el('span', { className: c.status === 'valid' ? 'good' : c.status === 'invalid' ? 'bad' : 'muted', text: c.status }), ' ' + c.link + (c.status === 'valid' ? '' : ': ' + c.reason)]),
    )));
  }
  return box;
}

/** One side's judge score and citation count in a comparison, where it was graded. */
export function sideGrade(g: SideGrade | null): HTMLParagraphElement | null {
  if (!g || (g.score == null && g.valid + g.invalid === 0)) return null;
  return el('p', { className: 'muted grade', text: [g.score == null ? null : 'judge score ' + fmtNum(g.score, 2), g.valid + g.invalid === 0 ? null : 'citations ' + g.valid + ' of ' + (g.valid + g.invalid) + ' valid'].filter(Boolean).join('; ') });
}
