import { z } from 'zod';

// The machine-readable outputs' shapes: `report --json` (report.json), `compare --json` (compare.json) and
// `report --history N --json` (history.json). Each carries a schemaVersion; their JSON Schemas are generated
// from these (schemas/*.schema.json, npm run schema:outputs). The top level and the fields a consumer keys on
// are typed; deeper figures are open objects. Every object accepts fields it does not name: adding a field
// is no new version, while removing, renaming or retyping one is (a new schema beside the old one, with its
// fixtures, test/report/output-contract.test.ts).

export const REPORT_SCHEMA_VERSION = 1;
export const COMPARE_SCHEMA_VERSION = 1;
export const HISTORY_SCHEMA_VERSION = 1;

const open = z.looseObject({});
const nullableNumber = z.number().nullable();
const runStatus = z.enum(['running', 'completed', 'aborted', 'failed']);

const rateEstimate = z.looseObject({ value: nullableNumber, low: nullableNumber, high: nullableNumber, n: z.number(), clusters: z.number(), method: z.string() });

const split = z
  .looseObject({ groupId: z.string(), groupLabel: z.string(), shardIndex: z.number().int().nullable(), shardCount: z.number().int(), shards: z.array(z.number().int()), partial: z.boolean() })
  .nullable();

const reportRun = z.looseObject({
  id: z.number().int(),
  label: z.string().nullable(),
  suiteName: z.string(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  status: runStatus,
  split,
});

const quality = z.looseObject({
  confidence: z.number(),
  targets: z.array(z.looseObject({ target: z.string(), k: z.number().int(), passRate: rateEstimate, passAtK: rateEstimate, passHatK: rateEstimate, flaky: z.array(z.string()), quarantined: z.array(z.string()) })),
  questions: z.array(z.looseObject({ target: z.string(), kind: z.enum(['question', 'search']), id: z.string() })),
});

const threshold = z.looseObject({ metric: z.string(), expression: z.string(), target: z.string().nullable(), value: nullableNumber, passed: z.boolean() });

export const reportJsonSchemaV1 = z.looseObject({
  schemaVersion: z.literal(1),
  db: z.string(),
  generatedAt: z.string(),
  run: reportRun,
  targets: z.array(z.looseObject({ name: z.string(), url: z.string(), api: z.enum(['legacy', 'versioned']), productVersion: z.string().nullable() })),
  counts: z.looseObject({ items: z.number().int(), turns: z.number().int(), searches: z.number().int() }),
  inProgress: z.boolean(),
  itemsPending: z.number().int(),
  itemsRunning: z.number().int(),
  summary: z.array(z.looseObject({ runId: z.number().int(), scope: z.string(), target: z.string(), items: z.number().int() })),
  searchSummary: z.array(z.looseObject({ runId: z.number().int(), scope: z.string(), target: z.string(), items: z.number().int() })),
  costs: z.array(open),
  quota: z.array(open),
  errors: z.array(open),
  anomalies: z.array(open),
  unowned: z.array(open),
  confirmations: z.looseObject({ runs: z.array(z.number().int()), items: z.number().int(), credits: nullableNumber }),
  unchecked: z.array(open),
  expectations: z.looseObject({ total: z.number().int(), passed: z.number().int(), failed: z.number().int(), items: z.number().int(), passedItems: z.number().int(), failedItems: z.number().int() }),
  quality,
  thresholds: z.array(threshold),
  files: z.array(z.string()),
});

const compareSide = z.looseObject({
  db: z.string(),
  runId: z.number().int(),
  label: z.string().nullable(),
  suite: z.string(),
  status: runStatus,
  startedAt: z.string(),
  targets: z.array(z.string()),
});

export const compareJsonSchemaV1 = z.looseObject({
  schemaVersion: z.literal(1),
  baseline: compareSide,
  candidate: compareSide,
  pairedBy: z.array(z.string()),
  thresholds: z.looseObject({ failOn: z.array(z.string()) }),
  bootstrap: z.looseObject({ resamples: z.number().int(), confidence: z.number(), seed: z.number() }),
  failed: z.boolean(),
  verdict: z.string(),
  verdictLine: z.string(),
  nothingCompared: z.string().nullable(),
  summary: z.looseObject({
    questions: z.looseObject({ paired: z.number().int(), baselineOnly: z.number().int(), candidateOnly: z.number().int() }),
    searches: z.looseObject({ paired: z.number().int(), baselineOnly: z.number().int(), candidateOnly: z.number().int() }),
    stateChanges: z.record(z.string(), z.number().int()),
    metrics: z.array(z.looseObject({ metric: z.string(), judgement: z.string(), gated: z.boolean() })),
  }),
  files: z.array(z.string()),
  pairwise: open.optional(),
});

const runHead = z.looseObject({ id: z.number().int(), label: z.string().nullable(), suiteName: z.string(), startedAt: z.string(), endedAt: z.string().nullable(), status: runStatus, nothingAsked: z.boolean() });

const historyRow = z.looseObject({
  runId: z.number().int(),
  label: z.string().nullable(),
  suite: z.string(),
  startedAt: z.string(),
  endedAt: z.string().nullable(),
  status: z.string(),
  target: z.string(),
  items: z.number().int(),
  itemsDone: z.number().int(),
  failed: z.number().int(),
  errorRate: nullableNumber,
  passRate: nullableNumber,
  wallMsP50: nullableNumber,
  creditsSum: nullableNumber,
  productVersion: z.string().nullable(),
  versionChanged: z.boolean(),
});

/** history.json, and `report --history N --json` (which leaves out `db` and the question grid). */
export const historyJsonSchemaV1 = z.looseObject({
  schemaVersion: z.literal(1),
  db: z.string().optional(),
  suite: z.string(),
  rows: z.array(historyRow),
  nothingAsked: z.array(runHead),
  questions: z.looseObject({ runs: z.array(runHead), rows: z.array(z.looseObject({ target: z.string(), kind: z.string(), id: z.string(), flaky: z.boolean() })) }).optional(),
  changePoints: open.optional(),
  files: z.array(z.string()),
});
