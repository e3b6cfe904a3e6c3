import path from 'node:path';
import { type ItemScript, completed, failed, question, recordRun, search, searchRecord, tempDir } from '../report/fixtures.js';
import { openStore } from '../../src/store/store.js';

// Databases for the viewer's tests: runs recorded through the real recorder, with hostile answers among them.

export const HOSTILE_ANSWER = [
  '# Found it',
  '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">',
  '[click me](javascript:window.__pwned=3) and [fine](https://sg.example.com/github.com/acme/app/-/blob/a.ts?L1)',
  '<a href="javascript:window.__pwned=4">raw link</a> \u001b]52;c;SGVsbG8=\u0007 tail',
  '![logo](javascript:window.__pwned=5)',
].join('\n\n');

export function scripts(count: number, answer: (i: number) => string = (i) => `Answer **${i}**: see \`retry.ts\`.`): ItemScript[] {
  const all: ItemScript[] = [];
  for (let i = 0; i < count; i++) {
    const id = `q${String(i).padStart(3, '0')}`;
    const fails = i % 7 === 3;
    all.push({
      item: question(id, 'prod', 0, [i % 2 === 0 ? 'http' : 'storage']),
      turns: [fails ? failed() : completed({ serverMs: 1000 + i * 10, credits: 2, answer: answer(i) })],
      expectations: [{ name: 'contains', passed: !fails, reason: fails ? 'missing "retry"' : 'found "retry"' }],
    });
  }
  all.push({ item: search('s-count'), search: searchRecord() });
  return all;
}

/** A database with two runs of suite smoke; the second holds the hostile answer in q001. */
export function twoRuns(): { dir: string; db: string } {
  const dir = tempDir('dsbench-view-');
  const db = path.join(dir, 'results.db');
  const store = openStore(db);
  recordRun(store, scripts(12));
  recordRun(store, scripts(12, (i) => (i === 1 ? HOSTILE_ANSWER : `Answer ${i}`)), { info: { startedAt: '2025-03-02T00:00:00.000Z' } });
  store.close();
  return { dir, db };
}
