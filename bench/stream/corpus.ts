// Realistic `matches` batches for the benchmark: content matches with chunk matches as the platform sends
// them (escaped newlines and tabs, quotes, some non-ASCII), each naming a distinct file.

const MATCHES_PER_BATCH = 40;
const ID_DIGITS = 10;
const REPO_DIGITS = 5;
const REPOSITORIES = 5000;

const SNIPPETS = [
  'func (c *Client) Do(ctx context.Context, req *Request) (*Response, error) {\n\tif err := c.limiter.Wait(ctx); err != nil {\n\t\treturn nil, err\n\t}',
  'export async function retry<T>(fn: () => Promise<T>, attempts = 3): Promise<T> {\n  for (let i = 0; ; i++) {\n    try { return await fn(); } catch (e) { if (i >= attempts) throw e; }',
  'def parse_config(path: str) -> dict:\n    """Load the YAML config; raise on \\"unknown\\" keys."""\n    with open(path) as f:\n        return yaml.safe_load(f)',
  '    // Übersetzung: Wiederholungsversuch nach Fehler — 再试一次 (retry once more)\n    let backoff = Duration::from_millis(250 * 2u64.pow(attempt));',
  '  <div className="search-result" data-repo={repo}>{highlight(line, ranges)}</div>',
  'SELECT repo_id, count(*) FROM matches WHERE path LIKE \'%/retry%\' GROUP BY repo_id;',
];

const LANGUAGES = ['Go', 'TypeScript', 'Python', 'Rust', 'TSX', 'SQL'];

interface Range {
  start: { offset: number; line: number; column: number };
  end: { offset: number; line: number; column: number };
}

function range(line: number, column: number, length: number): Range {
  const offset = line * 60 + column;
  return { start: { offset, line, column }, end: { offset: offset + length, line, column: column + length } };
}

function match(j: number): Record<string, unknown> {
  const snippet = SNIPPETS[j % SNIPPETS.length]!;
  const line = 10 + ((j * 37) % 900);
  const chunks = [
    {
      content: snippet,
      contentStart: { offset: line * 60, line, column: 0 },
      ranges: Array.from({ length: 1 + (j % 3) }, (_, k) => range(line + k, 5 + k, 5)),
    },
  ];
  if (j % 4 === 0) {
    chunks.push({ content: snippet.slice(0, 60), contentStart: { offset: (line + 40) * 60, line: line + 40, column: 0 }, ranges: [range(line + 40, 2, 7)] });
  }
  return {
    type: 'content',
    path: `src/pkg${j % 17}/internal/file_${'#'.repeat(ID_DIGITS)}.go`,
    pathMatches: [],
    repositoryID: 100000 + j,
    repository: `github.com/bench-org/repo_${'@'.repeat(REPO_DIGITS)}`,
    repoStars: 1234,
    repoLastFetched: '2025-01-15T10:20:30.123456Z',
    branches: [''],
    commit: '0123456789abcdef0123456789abcdef01234567',
    hunks: null,
    chunkMatches: chunks,
    language: LANGUAGES[j % LANGUAGES.length],
  };
}

/** A pre-rendered `matches` event with the places where each match's file id and repository id go. */
export interface BatchTemplate {
  bytes: Buffer;
  idOffsets: number[];
  repoOffsets: number[];
  matches: number;
  /** Client count (wire rule) of one batch. */
  counted: number;
}

export function batchTemplate(): BatchTemplate {
  const matches = Array.from({ length: MATCHES_PER_BATCH }, (_, j) => match(j));
  const counted = matches.reduce((n, m) => n + (m.chunkMatches as { ranges: unknown[] }[]).reduce((k, c) => k + c.ranges.length, 0), 0);
  const bytes = Buffer.from(`event: matches\ndata: ${JSON.stringify(matches)}\n\n`);
  return { bytes, idOffsets: offsetsOf(bytes, '#', ID_DIGITS), repoOffsets: offsetsOf(bytes, '@', REPO_DIGITS), matches: MATCHES_PER_BATCH, counted };
}

function offsetsOf(bytes: Buffer, marker: string, width: number): number[] {
  const needle = Buffer.from(marker.repeat(width));
  const offsets: number[] = [];
  for (let at = bytes.indexOf(needle); at >= 0; at = bytes.indexOf(needle, at + width)) offsets.push(at);
  return offsets;
}

/** Patches the ids of the matches `first ...` into `out`, which holds a copy of the template at `at`. */
export function patchBatch(t: BatchTemplate, first: number, out: Buffer, at: number): void {
  for (let j = 0; j < t.matches; j++) {
    const id = first + j;
    writeDigits(out, at + t.idOffsets[j]!, ID_DIGITS, id);
    writeDigits(out, at + t.repoOffsets[j]!, REPO_DIGITS, id % REPOSITORIES);
  }
}

function writeDigits(out: Buffer, at: number, width: number, value: number): void {
  for (let i = width - 1; i >= 0; i--) {
    const next = (value / 10) | 0;
    out[at + i] = 48 + value - next * 10;
    value = next;
  }
}

export { REPOSITORIES };
