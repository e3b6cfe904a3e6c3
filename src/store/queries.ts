// The store's read side, by job: finding runs, tallies and verdicts, the item readers, the items as stored,
// the attempts a resume ran again and the exports.
export * from './run-lookup.js';
export * from './night-verdicts.js';
export * from './tallies.js';
export * from './item-readers.js';
export * from './item-rows.js';
export { requeuedAttemptRows, type RequeuedAttemptRow } from './requeue.js';
export * from './question-export.js';
export * from './compare-export.js';
export * from './product-versions.js';
export { type BaselineRow, findBaseline, listBaselines } from './baselines.js';
export * from './trace-readers.js';
