import type { z } from 'zod';
import { excerpt, redact } from '../redact.js';
import { MatchBatch } from './batch.js';
import { countObjects } from './count-objects.js';
import { AlertEvent, ErrorEvent, FiltersEvent, ProgressEvent } from './events.js';
import { MatchScanner } from './scan-matches.js';
import type { Tally } from './tally.js';
import { latin1ToUtf8 } from './text.js';

/** Routes each decoded event to the tally; a malformed event becomes an error in the tally, never a throw. */
export class EventConsumer {
  private readonly scanner = new MatchScanner();
  private readonly batch = new MatchBatch();

  constructor(
    private readonly tally: Tally,
    private readonly onMatches?: (matches: unknown[]) => void,
  ) {}

  /** `data` is bytes-as-latin1 (see decoder.ts). */
  event(name: string, data: string): void {
    const tally = this.tally;
    // `done` always ends the stream: anything after it is not part of the search.
    if (tally.done) return;
    tally.countEvent();
    switch (name) {
      case 'matches':
        this.matches(data);
        return;
      case 'progress':
        this.parsed(name, data, ProgressEvent, (p) => tally.progressEvent(p));
        return;
      case 'filters':
        this.parsed(name, data, FiltersEvent, (f) => tally.filtersEvent(f));
        return;
      case 'alert':
        this.parsed(name, data, AlertEvent, (a) => tally.alert(a));
        return;
      case 'error':
        this.parsed(name, data, ErrorEvent, (e) => tally.error(`server error: ${e.message}`));
        return;
      case 'done':
        tally.doneEvent();
        return;
      default:
        tally.unknownEvent(name);
    }
  }

  private matches(data: string): void {
    const batch = this.batch;
    batch.reset();
    if (this.scanner.scan(data, batch)) {
      this.tally.matches(batch);
      if (this.onMatches) {
        const json = parseJson(latin1ToUtf8(data));
        if (json.ok && Array.isArray(json.value)) this.onMatches(json.value);
      }
      return;
    }
    const json = parseJson(latin1ToUtf8(data));
    if (!json.ok) return this.malformed('matches', json.problem, data);
    if (!Array.isArray(json.value)) return this.malformed('matches', 'the data is not an array', data);
    batch.reset();
    countObjects(json.value, batch);
    this.tally.matches(batch);
    this.onMatches?.(json.value);
  }

  private parsed<T>(name: string, data: string, schema: z.ZodType<T>, apply: (value: T) => void): void {
    const json = parseJson(latin1ToUtf8(data));
    if (!json.ok) return this.malformed(name, json.problem, data);
    const parsed = schema.safeParse(json.value);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(data)'}: ${i.message}`).join('; ');
      return this.malformed(name, problems, data);
    }
    apply(parsed.data);
  }

  private malformed(name: string, problem: string, data: string): void {
    this.tally.error(`malformed ${name} event: ${redact(problem)} (data: ${excerpt(latin1ToUtf8(data.slice(0, 400)), 160)})`);
  }
}

type JsonResult = { ok: true; value: unknown } | { ok: false; problem: string };

function parseJson(text: string): JsonResult {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, problem: `invalid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}
