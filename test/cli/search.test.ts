// dsbench search as a user runs it: output in the platform CLI's manner, --json fields, verdicts, exit codes.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { prepareCli, type Cli } from '../helpers/cli.js';

let cli: Cli;
let emulator: RunningEmulator;
let corpus: string;
let env: Record<string, string>;

beforeAll(async () => {
  corpus = mkdtempSync(path.join(tmpdir(), 'dsbench-search-cli-'));
  for (const [file, text] of Object.entries({
    'github.com/acme/alpha/lib/a.js': 'const needle = 1;\nneedle(needle);\n',
    'github.com/acme/beta/src/b.ts': 'export const needle = "needle";\n',
  })) {
    mkdirSync(path.dirname(path.join(corpus, file)), { recursive: true });
    writeFileSync(path.join(corpus, file), text);
  }
  [cli, emulator] = await Promise.all([prepareCli(), startEmulator({ corpus: { dir: corpus, archived: [], forks: [] } }, { search: async () => [] })]);
  env = { SRC_ENDPOINT: emulator.url, SRC_ACCESS_TOKEN: emulator.adminToken };
});

afterAll(async () => {
  await emulator.stop();
  rmSync(corpus, { recursive: true, force: true });
});

describe.concurrent('dsbench search', () => {
  it('prints an exhaustive count in the platform CLI manner', async () => {
    const run = await cli.run(['search', 'needle count:all'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^5 results in [\d.]+s from 2 repositories \(verdict: complete\)/);
    // The time above is the server's; the line below names both clocks.
    expect(run.stdout).toMatch(/^server [\d.]+s, wall [\d.]+s, first match after \d+ ms$/m);
  });

  it('--json has the counts, the verdict and the timings', async () => {
    const run = await cli.run(['search', 'needle count:all', '--json', '--cm'], env);
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout);
    expect(out).toMatchObject({ verdict: 'complete', matchCount: 5, counted: 5, repositories: 2, exhaustive: true, alert: null, error: null });
    expect(out.skipped).toEqual([]);
    expect(typeof out.durationMs).toBe('number');
    expect(typeof out.wallMs).toBe('number');
  });

  it('marks a count cut by count:N with + and the suggestion, and still exits 0', async () => {
    const run = await cli.run(['search', 'needle count:2'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^2\+ results in .* \(verdict: limit_hit\)/);
    expect(run.stdout).toContain('(try count:1000)');
  });

  it('shows the alert of a query that does not parse and exits 2', async () => {
    const run = await cli.run(['search', '(needle'], env);
    expect(run.code).toBe(2);
    expect(run.stdout).toContain('Alert: Unable To Process Query');
    expect(run.stdout).not.toMatch(/results in/);
  });

  it('a bad token is an HTTP error with the server message, exit 3', async () => {
    const run = await cli.run(['search', 'needle', '--json'], { ...env, SRC_ACCESS_TOKEN: 'sgp_not_a_token' });
    expect(run.code).toBe(3);
    const out = JSON.parse(run.stdout);
    expect(out.verdict).toBe('http_error');
    expect(out.httpStatus).toBe(401);
    expect(run.stdout + run.stderr).not.toContain('sgp_not_a_token');
  });

  it.each([
    [['search'], /Not enough non-option arguments|query/],
    [['search', 'x', '--cl', '2'], /contextLines \(cl\) works only with chunkMatches/],
    [['search', 'x', '--pattern-type', 'fuzzy'], /Invalid values|pattern-type/],
    [['search', 'x', '--timeout', 'soon'], /--timeout/],
  ])('bad flags %j exit 2 with a message', async (args, message) => {
    const run = await cli.run(args, env);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
  });
});

// Alone, so that no other search takes the queued fault.
describe('dsbench search on a faulty stream', () => {
  it('a stream cut before done is truncated, exit 3', async () => {
    emulator.streamFaults.enqueue('cutBeforeDone');
    const run = await cli.run(['search', 'needle count:all', '--json'], env);
    expect(run.code).toBe(3);
    expect(JSON.parse(run.stdout).verdict).toBe('truncated');
  });
});

// A reply dsbench cannot decode is a search that did not finish: exit 3, as the same search in a run.
describe('dsbench search on a reply it cannot decode', () => {
  it('an unknown content-encoding is truncated, exit 3 (not 5, not a pass)', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'content-encoding': 'br' });
      res.end('\u0000\u0001not brotli');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const run = await cli.run(['search', 'needle', '--json'], { SRC_ENDPOINT: `http://127.0.0.1:${port}`, SRC_ACCESS_TOKEN: 'token-x' });
      expect(JSON.parse(run.stdout).verdict).toBe('truncated');
      expect(run.code).toBe(3);
    } finally {
      server.close();
    }
  });
});
