// Building the page: elements, headings and the number formats every view shares.
import type { RunInfo } from './data.js';

/** Where the page is drawn (page.ts writes it, with a "Loading…" that the first header replaces). */
export const app = document.getElementById('app') as HTMLElement;

export type Child = Node | string | null;

/** An element with its text, class name and attributes, and its children (nulls skipped). */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props?: Record<string, string>, children?: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props)
    for (const k in props) {
      const value = props[k] as string;
      if (k === 'text') node.textContent = value;
      else if (k === 'className') node.className = value;
      else node.setAttribute(k, value);
    }
  (children || []).forEach((c) => {
    if (c != null) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  });
  return node;
}

type Num = number | null | undefined;

export function fmtMs(v: Num): string {
  if (v == null) return '';
  return v >= 1000 ? (v / 1000).toFixed(v >= 100000 ? 0 : 1) + ' s' : Math.round(v) + ' ms';
}
export function fmtNum(v: Num, d?: number): string {
  if (v == null) return '';
  return Number(v).toLocaleString('en-US', { maximumFractionDigits: d == null ? 2 : d });
}
export function fmtPct(v: Num): string {
  return v == null ? '' : (v * 100).toFixed(1) + '%';
}
export function fmtSigned(v: Num, unit?: string): string {
  if (v == null) return '';
  return (v > 0 ? '+' : '') + fmtNum(v) + (unit ? ' ' + unit : '');
}
/** An estimate and its interval, as a rate or (score) a plain number. */
export function fmtEst(r: { value: Num; low: Num; high: Num } | null | undefined, score?: boolean): string {
  if (!r || r.value == null) return '';
  const f = score ? (v: Num) => fmtNum(v, 3) : fmtPct;
  return f(r.value) + ' (' + f(r.low) + ' … ' + f(r.high) + ')';
}
/** A change in percentage points. */
export function fmtPts(v: Num): string {
  return v == null ? '' : (v > 0 ? '+' : '') + (v * 100).toFixed(1);
}
export function fmtP(p: number): string {
  return p < 0.001 ? '< 0.001' : p.toPrecision(2);
}
export function fmtCredits(v: Num): string {
  return v == null ? 'not measured' : fmtNum(v);
}

export function heading(text: string): void {
  app.appendChild(el('h2', { text }));
}

/** The page's title with its verdict badge ([class, text]), and its lines of metadata. */
export function header(title: string, meta: string[], verdict?: [string, string] | null): void {
  app.textContent = '';
  app.appendChild(el('h1', {}, [title, ' ', verdict ? el('span', { className: 'verdict ' + verdict[0], text: verdict[1] }) : null]));
  meta.forEach((m) => app.appendChild(el('p', { className: 'meta', text: m })));
}

export function runName(r: RunInfo): string {
  return 'run ' + r.id + (r.label ? ' (' + r.label + ')' : '');
}
