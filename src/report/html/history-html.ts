import type { HistoryRow } from '../history.js';
import { htmlPage } from './page.js';

export function historyHtml(db: string, suite: string, rows: readonly HistoryRow[], generatedAt: string): string {
  return htmlPage(`dsbench history: ${suite}`, { kind: 'history', db, suite, rows, generatedAt });
}
