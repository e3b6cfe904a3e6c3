import type { HistoryRow } from '../history.js';
import type { QuestionGrid } from '../question-grid.js';
import type { HistoryPage } from './browser/data.js';
import { htmlPage } from './page.js';

export function historyHtml(db: string, suite: string, rows: readonly HistoryRow[], generatedAt: string, grid?: QuestionGrid): string {
  const data: HistoryPage = { kind: 'history', db, suite, rows, generatedAt, grid };
  return htmlPage(`dsbench history: ${suite}`, data);
}
