import type { CompareResult, PairwiseView, Side } from './compare-result.js';
import { COMPARE_SCHEMA_VERSION } from '../output-schemas.js';

/** compare.json and `compare --format json`: the comparison's figures, and the pairwise judge's when it was asked. */
export function compareJson(r: CompareResult, pairwise?: PairwiseView): Record<string, unknown> {
  const side = (s: Side) => ({
    db: s.db,
    runId: s.run.id,
    label: s.run.label,
    suite: s.run.suiteName,
    status: s.run.status,
    startedAt: s.run.startedAt,
    target: s.target,
    targets: s.targets,
    productVersions: s.productVersions,
    servedByEmulator: s.servedByEmulator,
    ...(s.window && { window: { requested: s.window.requested, runIds: s.window.runs.map((r) => r.id) } }),
  });
  return {
    schemaVersion: COMPARE_SCHEMA_VERSION,
    baseline: side(r.baseline),
    candidate: side(r.candidate),
    pairedBy: r.byTarget ? ['target', 'item_id', 'repeat', 'turn'] : ['item_id', 'repeat', 'turn'],
    thresholds: { ...r.thresholds, failOn: [...r.thresholds.failOn] },
    bootstrap: r.bootstrap,
    failed: r.summary.failed,
    verdict: r.verdict,
    verdictLine: r.verdictLine,
    nothingCompared: r.nothingCompared ?? null,
    summary: r.summary,
    files: r.files,
    ...(pairwise && { pairwise: { ...pairwise.result, failedGates: pairwise.failedGates } }),
  };
}
