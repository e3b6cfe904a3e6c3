// Writes a results database with one run of `turns` asked questions, straight through SQL: a prepared
// statement per table, one transaction (the recorder commits per call, far too slow for this volume).
// Shape: two targets, items of two turns each, two sources and one suggested follow-up per turn, one
// expectation per item (1 in 50 failing), some errors, a few quota snapshots, and 1% as many searches.
import { openStore } from '../../src/store/store.js';

export interface Generated {
  runId: number;
  turns: number;
  items: number;
  searches: number;
}

const WORDS = 'retry policy backoff jitter undici fetch dispatcher request timeout connection pool agent stream parser token limit quota credit source file repository function method class error handler'.split(' ');

function words(seed: number, count: number): string {
  let x = seed >>> 0;
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out.push(WORDS[x % WORDS.length]!);
  }
  return out.join(' ');
}

export function generate(file: string, turns: number): Generated {
  const store = openStore(file);
  const db = store.db;
  const turnsPerItem = 2;
  const items = Math.ceil(turns / turnsPerItem);
  const searches = Math.ceil(turns / 100);
  const targets = ['prod', 'staging'];
  db.pragma('synchronous = OFF');
  const insert = {
    run: db.prepare(`INSERT INTO runs (label, suite_name, suite_path, suite_hash, dsbench_version, options_json, started_at, ended_at, status)
      VALUES ('bench', 'bench-suite', 'suites/bench.yaml', '${'ab'.repeat(32)}', '0.1.0', '{}', '2025-01-01T00:00:00.000Z', '2025-01-01T06:00:00.000Z', 'completed')`),
    target: db.prepare(`INSERT INTO targets (run_id, name, url, api, emulated) VALUES (?, ?, ?, 'legacy', 0)`),
    item: db.prepare(`INSERT INTO items (run_id, key, position, kind, target, suite_item_id, repeat, tags_json, status, outcome, conversation_ref, started_at, ended_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'done', ?, ?, '2025-01-01T00:00:01.000Z', '2025-01-01T00:00:09.000Z')`),
    turn: db.prepare(`INSERT INTO turns (run_id, item_key, turn, text, question_id, state, error_code, error_raw_code, error_message, title, answer,
        sent_at, observed_end_at, server_ms, server_ms_source, wall_ms, polls, time_millis, tool_calls, total_input_tokens, cached_tokens,
        cache_creation_input_tokens, prompt_tokens, completion_tokens, total_tokens, credits)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '2025-01-01T00:00:01.000Z', '2025-01-01T00:00:08.000Z', ?, 'stats.time_millis', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
    source: db.prepare(`INSERT INTO sources (run_id, item_key, turn, position, type, link, label) VALUES (?, ?, ?, ?, 'File', ?, ?)`),
    followup: db.prepare(`INSERT INTO suggested_followups (run_id, item_key, turn, position, text) VALUES (?, ?, ?, 0, ?)`),
    expectation: db.prepare(`INSERT INTO expectations (run_id, item_key, position, name, passed, reason, turn) VALUES (?, ?, 0, 'contains', ?, ?, NULL)`),
    search: db.prepare(`INSERT INTO searches (run_id, item_key, query, params_json, verdict, match_count, counted, counted_by_type_json, repositories, files,
        exhaustive, duration_ms, wall_ms, time_to_first_event_ms, time_to_first_match_ms, skipped_json)
      VALUES (?, ?, ?, '{}', 'complete', ?, ?, '{"content":1}', 3, 7, 1, ?, ?, 10, 20, '[]')`),
    quota: db.prepare(`INSERT INTO quota_snapshots (run_id, target, at, total_quota, quota_limit, reset_time) VALUES (?, ?, ?, ?, 10000000, '2025-02-01T00:00:00.000Z')`),
  };
  const result = db.transaction((): Generated => {
    const runId = Number(insert.run.run().lastInsertRowid);
    for (const t of targets) insert.target.run(runId, t, `https://${t}.example.com`);
    let position = 0;
    let made = 0;
    for (let i = 0; i < items; i++) {
      const target = targets[i % targets.length]!;
      const id = `q${Math.floor(i / targets.length) % 1000}`;
      const repeat = Math.floor(i / (targets.length * 1000));
      const key = `${target}/question/${id}/${repeat}`;
      const failedItem = i % 97 === 0;
      insert.item.run(runId, key, position++, 'question', target, id, repeat, JSON.stringify(['bench', `group-${i % 5}`]), failedItem ? 'error' : 'completed', `c${i}`);
      for (let t = 0; t < turnsPerItem && made < turns; t++, made++) {
        const error = failedItem && t === turnsPerItem - 1;
        const serverMs = 2000 + ((i * 7919 + t * 104729) % 30000);
        insert.turn.run(
          runId, key, t, `Question ${id} turn ${t}: ${words(i + t, 8)}?`, String(100000 + made), error ? 'error' : 'completed',
          error ? 'INTERNAL' : null, error ? 'InternalError' : null, error ? 'the agent failed' : null,
          error ? null : `About ${words(i, 3)}`, error ? null : `The answer: ${words(i * 31 + t, 60)}. See [retry.ts](/github.com/org/repo/-/blob/retry.ts).`,
          serverMs, serverMs + 700, 4, serverMs, 3, 12000, 9000, 1000, 11000, 400, 12400, error ? 0 : 1 + ((i + t) % 4),
        );
        insert.source.run(runId, key, t, 0, '/github.com/org/repo', 'github.com/org/repo');
        insert.source.run(runId, key, t, 1, `/github.com/org/repo/-/blob/f${i % 50}.ts`, `f${i % 50}.ts`);
        insert.followup.run(runId, key, t, `And what about ${words(i, 2)}?`);
      }
      insert.expectation.run(runId, key, i % 50 === 0 ? 0 : 1, i % 50 === 0 ? 'expected "retry" in the answer' : 'found "retry"');
    }
    for (let s = 0; s < searches; s++) {
      const target = targets[s % targets.length]!;
      const key = `${target}/search/s${s}/0`;
      insert.item.run(runId, key, position++, 'search', target, `s${s}`, 0, '["bench"]', 'complete', null);
      insert.search.run(runId, key, `retry lang:go count:${s}`, 100 + (s % 50), 100 + (s % 50), 100 + (s % 300), 150 + (s % 300));
    }
    for (const t of targets) {
      for (let h = 0; h < 6; h++) insert.quota.run(runId, t, `2025-01-01T0${h}:00:00.000Z`, 100000 + h * 5000);
    }
    return { runId, turns: made, items, searches };
  })();
  store.close();
  return result;
}
