// One merge in a process of its own, so its peak RSS is the merge's: prints {ms, maxRssMB} as JSON.
// Usage: node --import tsx bench/merge/merge-once.ts INTO SHARD...
import { mergeShards } from '../../src/store/merge.js';

const [into, ...sources] = process.argv.slice(2);
const started = performance.now();
const [merged] = mergeShards({ sources, into: into as string });
const ms = performance.now() - started;
process.stdout.write(`${JSON.stringify({ ms, maxRssMB: process.resourceUsage().maxRSS / 1024, items: merged?.items })}\n`);
