export { openStore, DEFAULT_BUSY_TIMEOUT_MS, type Store, type StoreOptions } from './store.js';
export { SqliteRecorder } from './recorder.js';
export { leaseHolder } from './lease.js';
export { MIGRATIONS, migrate, latestVersion, schemaVersion, type Migration } from './migrations.js';
export * from './queries.js';
export { SqliteGradeStore } from './grades.js';
export { gradingSummary, formatGradingSummary, turnGradingLookup, type GradingSummary, type TurnGrading } from './grade-queries.js';
