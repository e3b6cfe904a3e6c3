import type { HistoryRow } from '../history.js';
import type { QuestionGrid } from '../question-grid.js';
import { htmlPage } from './page.js';

export function historyHtml(db: string, suite: string, rows: readonly HistoryRow[], generatedAt: string, grid?: QuestionGrid): string {
  return htmlPage(`dsbench history: ${suite}`, { kind: 'history', db, suite, rows, generatedAt, grid });
}
