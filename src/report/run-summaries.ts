import type Database from 'better-sqlite3';
import {
  type ExpectationRecord,
  type ItemColumns,
  type ItemVerdictRow,
  type QuestionExportRow,
  type RunRecord,
  type SearchExportRow,
  type SearchRow,
  type StatAnomalyRow,
  type TurnMetricRow,
  iterateItemVerdicts,
  quotaSnapshots,
  statAnomalies,
} from '../store/queries.js';
import { CostAnalysis } from './costs.js';
import { PerQuestion } from './per-question.js';
import { QuestionSummary, SearchSummary } from './summary.js';

/**
 * The run's numbers: summary rows, search summary rows, cost rows, item progress, stat anomalies. Feed every
 * turn and search (`addQuestionRow`/`addSearchRow`, which also bring their items, or `addTurn`/`addSearch`),
 * then `finish`.
 */
export class RunSummaries {
  private readonly questions: QuestionSummary;
  private readonly searches: SearchSummary;
  private readonly costs: CostAnalysis;
  private readonly perQuestion = new PerQuestion();
  private readonly anomalies: StatAnomalyRow[] = [];
  private itemsPending = 0;
  private itemsRunning = 0;
  /** Items counted from the export rows; null when the rows came without them (addTurn, addSearch). */
  private itemsSeen: number | null = 0;
  private lastItemKey: string | undefined;

  constructor(
    runId: number,
    order: string[],
    private readonly counts: { items: number; turns: number; searches: number },
  ) {
    this.questions = new QuestionSummary(runId, order, counts.turns);
    this.searches = new SearchSummary(runId, order, counts.searches);
    this.costs = new CostAnalysis(runId);
  }

  addTurn(t: TurnMetricRow): void {
    this.itemsSeen = null;
    this.turn(t);
  }

  addSearch(s: SearchRow): void {
    this.itemsSeen = null;
    this.searches.addSearch(s);
  }

  /** A row of questions.csv: a turn, its item (at the item's first turn: an item's turns come together) and its anomalies. */
  addQuestionRow(t: QuestionExportRow): void {
    this.turn(t);
    if (t.itemKey !== this.lastItemKey) {
      this.lastItemKey = t.itemKey;
      this.exportedItem(t, t.tagsJson, t.expectations);
    }
    if (t.anomalies !== null) this.anomalies.push({ target: t.target, itemKey: t.itemKey, turn: t.turn, anomalies: JSON.parse(t.anomalies) as string[] });
  }

  /** A row of searches.csv: a search and its item (one search an item). */
  addSearchRow(s: SearchExportRow): void {
    this.searches.addSearch(s);
    this.exportedItem(s, JSON.stringify(s.tags), s.expectations);
  }

  private turn(t: TurnMetricRow): void {
    this.questions.addTurn(t);
    this.costs.addTurn(t);
    this.perQuestion.addTurn(t);
  }

  private exportedItem(item: ItemColumns, tagsJson: string, expectations: readonly ExpectationRecord[]): void {
    if (this.itemsSeen !== null) this.itemsSeen++;
    this.addItem({
      kind: item.kind,
      target: item.target,
      suiteItemId: item.suiteItemId,
      repeat: item.repeat,
      tagsJson,
      status: item.itemStatus,
      outcome: item.outcome,
      expectations: expectations.length,
      expectPassed: expectations.length === 0 ? null : expectations.every((e) => e.passed) ? 1 : 0,
    });
  }

  private addItem(item: ItemVerdictRow): void {
    this.questions.addItem(item);
    this.searches.addItem(item);
    this.perQuestion.addItem(item);
    if (item.status === 'pending') this.itemsPending++;
    if (item.status === 'running') this.itemsRunning++;
  }

  finish(db: Database.Database, run: RunRecord, now: Date) {
    // The items no export row carried (not yet asked, or ended before their first turn); all of them when the rows came without their items.
    if (this.itemsSeen === null || this.itemsSeen < this.counts.items) {
      for (const item of iterateItemVerdicts(db, run.id, { unexported: this.itemsSeen !== null })) this.addItem(item);
    }
    const summary = this.questions.rows();
    const searchSummary = this.searches.rows();
    const quota = quotaSnapshots(db, run.id);
    const { itemsPending, itemsRunning } = this;
    const inProgress = run.status === 'running' || itemsPending > 0 || itemsRunning > 0;
    const costRows = this.costs.rows({ summary, snapshots: quota, runComplete: !inProgress, now });
    const anomalies = this.itemsSeen === null ? statAnomalies(db, run.id) : this.anomalies;
    return { summary, searchSummary, costRows, itemsPending, itemsRunning, quota, inProgress, now, perQuestion: this.perQuestion.rows(), anomalies };
  }
}
