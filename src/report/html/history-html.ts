import type { HistoryRow } from '../history.js';
import type { RunHead } from '../../store/queries.js';
import type { QuestionGrid } from '../question-grid.js';
import type { Detection } from '../change-detection.js';
import type { HistoryPage } from './browser/data.js';
import { htmlPage } from './page.js';

export function historyHtml(db: string, suite: string, rows: readonly HistoryRow[], nothingAsked: readonly RunHead[], generatedAt: string, grid?: QuestionGrid, detection?: Detection): string {
  const data: HistoryPage = { kind: 'history', db, suite, rows, nothingAsked: nothingAsked.map((r) => ({ id: r.id, label: r.label, startedAt: r.startedAt })), generatedAt, grid, detection };
  return htmlPage(`dsbench history: ${suite}`, data);
}
