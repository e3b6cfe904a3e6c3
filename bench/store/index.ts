// CPU of the store alone, in this process: the recorder writing N questions' rows (two turns' writes each,
// as a run records them, committed every 200 items), then the question export reading them back.
// Usage: node --import tsx bench/store/index.ts [questions] [--src <folder of the sources to measure>]
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const at = process.argv.indexOf('--src');
const src = at > 0 ? path.resolve(process.argv[at + 1]!) : path.resolve(import.meta.dirname, '../../src');
const questions = Number(process.argv.slice(2).find((a) => /^\d+$/.test(a)) ?? 20_000);
const store = (await import(pathToFileURL(path.join(src, 'store/index.ts')).href)) as typeof import('../../src/store/index.js');

const folder = mkdtempSync(path.join(os.tmpdir(), 'dsbench-store-bench-'));
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
try {
  const s = store.openStore(path.join(folder, 'bench.db'));
  const recorder = s.recorder;
  const items = Array.from({ length: questions }, (_, i) => ({ key: `t/question/q${i}/1`, kind: 'question' as const, target: 't', suiteItemId: `q${i}`, repeat: 1, tags: ['a', 'b'] }));
  const runId = recorder.createRun(
    { label: undefined, suiteName: 's', suitePath: 's.yaml', suiteHash: 'h', dsbenchVersion: '0', options: {}, startedAt: new Date(0).toISOString() },
    [{ name: 't', url: 'http://localhost', api: 'versioned', emulated: false }],
    items,
  );
  const answer = 'x'.repeat(450);
  const stats = { timeMillis: 1200, toolCalls: 3, totalInputTokens: 900, cachedTokens: 100, cacheCreationInputTokens: 0, promptTokens: 800, completionTokens: 200, totalTokens: 1000, credits: 2 };
  const at0 = new Date(0).toISOString();
  const writing = process.cpuUsage();
  for (let i = 0; i < questions; i++) {
    const key = items[i]!.key;
    recorder.itemStarted(runId, key, at0);
    recorder.recordTurn(runId, key, 0, { state: 'sending', text: `question ${i}`, polls: 0, sentAt: at0 });
    recorder.conversationCreated(runId, key, `ref-${i}`, at0);
    recorder.recordTurn(runId, key, 0, {
      state: 'completed', text: `question ${i}`, questionId: `id-${i}`, title: 'title', answer, polls: 3, stats, sentAt: at0, observedEndAt: at0,
      serverCreatedAt: at0, serverUpdatedAt: at0, serverMs: 1200, serverMsSource: 'timestamps', wallMs: 1300,
      sources: [{ type: 'file', link: 'https://x/a', label: 'a' }, { type: 'file', link: 'https://x/b', label: 'b' }], suggestedFollowups: ['next?'],
    });
    recorder.itemFinished(runId, key, 'completed', at0);
    if (i % 200 === 199) recorder.commit();
  }
  recorder.commit();
  const writeMs = cpuMs(writing);
  const reading = process.cpuUsage();
  let rows = 0;
  for (const row of store.iterateQuestionExport(s.db, runId)) rows += row.turn + 1;
  const exportMs = cpuMs(reading);
  s.close();
  console.log(JSON.stringify({ questions, rows, writeMs: Math.round(writeMs), exportMs: Math.round(exportMs) }));
} finally {
  rmSync(folder, { recursive: true, force: true });
}
