// The store's read side, by job: finding runs, tallies and verdicts, the item readers and the exports.
export * from './run-lookup.js';
export * from './tallies.js';
export * from './item-readers.js';
export * from './question-export.js';
