// The machine-readable outputs do not drift: what report, compare and history print today parses with the
// current version's schema, every committed fixture of every version still parses with its version's schema,
// and the shipped JSON Schemas are the ones the zod schemas generate.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ZodType } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { notifyPayloadSchema } from '../../src/notify/payload.js';
import { compareJsonSchemaV1, historyJsonSchemaV1, reportJsonSchemaV1 } from '../../src/report/output-schemas.js';
import { OUTPUT_SCHEMAS, renderOutputSchema } from '../../scripts/output-schemas.js';
import { dsbenchHere } from '../helpers/cli-here.js';
import { FAST, cleanup, corpusDir, emulator, tempDir, writeSuite } from '../runner/fixtures/harness.js';

const ROOT = new URL('../../', import.meta.url);
const FIXTURES = new URL('test/fixtures/outputs/', ROOT);

/** Each output's schema by version: a new version is added here, its fixtures beside the old ones. */
const VERSIONS: Record<string, Record<number, ZodType>> = {
  report: { 1: reportJsonSchemaV1 },
  compare: { 1: compareJsonSchemaV1 },
  history: { 1: historyJsonSchemaV1 },
  notify: { 1: notifyPayloadSchema },
};

describe('fixtures of every version', () => {
  const versions = readdirSync(FIXTURES).filter((d) => /^v\d+$/.test(d));
  it('exist for every output at its newest version', () => {
    for (const [name, byVersion] of Object.entries(VERSIONS)) {
      const newest = Math.max(...Object.keys(byVersion).map(Number));
      expect(versions, name).toContain(`v${newest}`);
      expect(readdirSync(new URL(`v${newest}/`, FIXTURES)), name).toContain(`${name}.json`);
    }
  });
  for (const dir of versions) {
    for (const file of readdirSync(new URL(`${dir}/`, FIXTURES))) {
      it(`${dir}/${file} parses with its version's schema`, () => {
        const name = path.basename(file, '.json');
        const version = Number(dir.slice(1));
        const data = JSON.parse(readFileSync(new URL(`${dir}/${file}`, FIXTURES), 'utf8')) as { schemaVersion: number };
        expect(data.schemaVersion).toBe(version);
        const schema = VERSIONS[name]?.[version];
        expect(schema, `no schema for ${name} v${version}`).toBeDefined();
        schema!.parse(data);
      });
    }
  }
});

describe('the shipped JSON Schemas', () => {
  it('are those the zod schemas generate (npm run schema:outputs), and the package ships them', () => {
    for (const entry of OUTPUT_SCHEMAS) expect(readFileSync(new URL(entry.file, ROOT), 'utf8'), entry.file).toBe(renderOutputSchema(entry));
    const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('schemas/');
  });
});

describe("today's outputs", () => {
  let e: RunningEmulator;
  let db: string;
  const SUITE = `name: contract
defaults: { api: legacy, poll: { strategy: fixed, interval: 1s } }
questions:
  - id: where-retry
    question: Where is backoffDelay implemented?
    expect: { contains: backoffDelay }
searches:
  - id: count
    query: retry count:all
`;
  beforeAll(async () => {
    e = await emulator({ ...FAST, corpus: { dir: corpusDir() } });
    db = path.join(tempDir(), 'contract.db');
    const suite = writeSuite(SUITE);
    for (const label of ['a', 'b']) {
      const ran = await dsbenchHere(['run', suite, '--endpoint', e.url, '--db', db, '--quiet', '--label', label], { SRC_ACCESS_TOKEN: e.adminToken });
      expect(ran.code, ran.stderr).toBe(0);
    }
    // Two runs of the CLI: a loaded machine takes longer than the default 20 s.
  }, 90_000);
  afterAll(cleanup);

  const json = async (args: string[]) => {
    const ran = await dsbenchHere([...args, '--db', db, '--out', tempDir()]);
    // A comparison's verdict is its exit code (1 regressed, 8 nothing to judge): the JSON is printed either way.
    expect([0, 1, 8, 11], ran.stderr).toContain(ran.code);
    return JSON.parse(ran.stdout) as unknown;
  };

  it('parse with the current schemas', async () => {
    reportJsonSchemaV1.parse(await json(['report', 'b', '--json']));
    compareJsonSchemaV1.parse(await json(['compare', 'a', 'b', '--json', '--min-pairs', '1']));
    historyJsonSchemaV1.parse(await json(['report', '--history', '5', '--json']));
  }, 60_000);

  it('history.json, the file, too', async () => {
    const out = tempDir();
    const ran = await dsbenchHere(['report', '--history', '5', '--format', 'json', '--db', db, '--out', out]);
    expect(ran.code, ran.stderr).toBe(0);
    historyJsonSchemaV1.parse(JSON.parse(readFileSync(path.join(out, 'history.json'), 'utf8')));
  });
});
