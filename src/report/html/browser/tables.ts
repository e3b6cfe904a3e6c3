// Tables: small static ones, and a paged, filterable one over row arrays whose cells are built only for the
// page shown (a 100,000-row table is never put in the DOM at once).
import type { Cell, Row } from './data.js';
import { el, fmtNum } from './dom.js';

const PAGE = 50;

export interface Column<R> {
  label: string;
  num?: boolean;
  /** The cell's value, which the filter searches. */
  get: (r: R) => Cell | undefined;
  /** The cell's text, where it is not the value as it is. */
  fmt?: ((r: R) => string) | null;
  /** Extra class names of the cell. */
  cls?: ((r: R) => string) | null;
}

export interface PagedOptions<R> {
  placeholder?: string;
  /** A checkbox that keeps only the rows `only` accepts. */
  onlyLabel?: string;
  only?: (r: R) => boolean;
  /** The detail shown below the table when a row is clicked. */
  onRow?: (r: R) => Node;
}

/** A paged table; `show(row)` turns to the row's page and shows its detail. */
export type PagedTable<R> = HTMLDivElement & { show(r: R): void };

export function pagedTable<R>(columns: Array<Column<R>>, rows: R[], options: PagedOptions<R> = {}): PagedTable<R> {
  const box = el('div') as PagedTable<R>;
  const search = el('input', { type: 'search', placeholder: options.placeholder || 'Filter (id, state, code, text)' });
  const only = options.onlyLabel ? el('input', { type: 'checkbox' }) : null;
  const pager = el('span', { className: 'pager' });
  const prev = el('button', { text: 'Previous' });
  const next = el('button', { text: 'Next' });
  box.appendChild(el('div', { className: 'toolbar' }, [search, only ? el('label', {}, [only, ' ' + options.onlyLabel]) : null, prev, next, pager]));
  const thead = el('tr', {}, columns.map((c) => el('th', { className: c.num ? 'num' : '', text: c.label })));
  const tbody = el('tbody');
  box.appendChild(el('table', {}, [el('thead', {}, [thead]), tbody]));
  const detail = el('div');
  box.appendChild(detail);
  let shown = rows;
  let page = 0;
  let selected: HTMLElement | null = null;
  const showDetail = (r: R, onRow: (r: R) => Node) => {
    detail.textContent = '';
    detail.appendChild(onRow(r));
  };
  function apply(): void {
    const q = search.value.trim().toLowerCase();
    shown = rows.filter((r) => {
      if (only && only.checked && options.only && !options.only(r)) return false;
      if (!q) return true;
      return columns.some((c) => { const v = c.get(r); return v != null && String(v).toLowerCase().indexOf(q) >= 0; });
    });
    page = 0;
    draw();
  }
  function draw(): void {
    tbody.textContent = '';
    const pages = Math.max(1, Math.ceil(shown.length / PAGE));
    shown.slice(page * PAGE, page * PAGE + PAGE).forEach((r) => {
      const tr = el('tr', { className: options.onRow ? 'clickable' : '' }, columns.map((c) => {
        const v = c.get(r);
        return el('td', { className: (c.num ? 'num ' : '') + (c.cls ? c.cls(r) || '' : ''), text: c.fmt ? c.fmt(r) : v == null ? '' : String(v) });
      }));
      const onRow = options.onRow;
      if (onRow) tr.onclick = () => {
        if (selected) selected.classList.remove('selected');
        selected = tr;
        tr.classList.add('selected');
        showDetail(r, onRow);
      };
      tbody.appendChild(tr);
    });
    pager.textContent = 'rows ' + (shown.length ? page * PAGE + 1 : 0) + '-' + Math.min(shown.length, (page + 1) * PAGE) + ' of ' + fmtNum(shown.length) + ' (page ' + (page + 1) + ' of ' + pages + ')';
    prev.disabled = page === 0;
    next.disabled = page >= pages - 1;
  }
  let timer: number | undefined;
  search.oninput = () => {
    clearTimeout(timer);
    timer = setTimeout(apply, 150);
  };
  if (only) only.onchange = apply;
  prev.onclick = () => { page--; draw(); };
  next.onclick = () => { page++; draw(); };
  box.show = (r) => {
    const i = shown.indexOf(r);
    if (i >= 0) {
      page = Math.floor(i / PAGE);
      draw();
    }
    if (options.onRow) showDetail(r, options.onRow);
  };
  draw();
  return box;
}

/** A table of a few rows; `numeric[i]` right-aligns column i. */
export function staticTable(headers: string[], rows: Array<Array<Cell | undefined>>, numeric?: Array<number | boolean>): HTMLTableElement {
  const cls = (i: number) => (numeric && numeric[i] ? 'num' : '');
  return el('table', {}, [
    el('thead', {}, [el('tr', {}, headers.map((h, i) => el('th', { className: cls(i), text: h })))]),
    el('tbody', {}, rows.map((r) => el('tr', {}, r.map((c, i) => el('td', { className: cls(i), text: c == null ? '' : String(c) }))))),
  ]);
}

/** Cell i of a positional row read as a number, or a text (the page's column lists say which). */
export const num = (r: Row, i: number): number | null => r[i] as number | null;
export const str = (r: Row, i: number): string | null => r[i] as string | null;
