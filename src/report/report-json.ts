import type { ReportData } from './report-result.js';
import { REPORT_SCHEMA_VERSION } from './output-schemas.js';

/** The JSON form of a report (report.json, `--format json`): the same figures as the CSV summaries; its shape is output-schemas.ts's. */
export function reportJson(data: ReportData, files: readonly string[]): Record<string, unknown> {
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    db: data.db,
    generatedAt: data.generatedAt,
    run: data.run,
    targets: data.targets,
    counts: data.counts,
    inProgress: data.inProgress,
    itemsPending: data.itemsPending,
    itemsRunning: data.itemsRunning,
    summary: data.summary,
    searchSummary: data.searchSummary,
    costs: data.costs,
    quota: data.quota,
    errors: data.errors,
    anomalies: data.anomalies,
    unowned: data.unowned,
    confirmations: data.confirmations,
    unchecked: data.unchecked,
    expectations: data.expectations,
    quality: data.quality,
    thresholds: data.thresholds,
    ...(data.traces && { traces: data.traces }),
    files,
  };
}
