import fs from 'node:fs';
import path from 'node:path';
import { stringify } from 'csv-stringify/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Column, CsvFile, cell, csvField, neutralize, text, writeCsv } from '../../src/report/csv.js';
import { parseCsv, tempDir } from './fixtures.js';

let dir: string;
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('formula neutralization', () => {
  it('prefixes text that starts with = + - @ tab or CR', () => {
    expect(neutralize('=SUM(A1:A2)')).toBe("'=SUM(A1:A2)");
    expect(neutralize('+1')).toBe("'+1");
    expect(neutralize('-2+3')).toBe("'-2+3");
    expect(neutralize('@cmd')).toBe("'@cmd");
    expect(neutralize('\tx')).toBe("'\tx");
    expect(neutralize('\rx')).toBe("'\rx");
  });

  it('leaves other text alone', () => {
    expect(neutralize('')).toBe('');
    expect(neutralize('a=b')).toBe('a=b');
    expect(neutralize(' =x')).toBe(' =x');
  });

  it("is injective: text that starts with ' is prefixed too, so =x and '=x stay apart", () => {
    expect(neutralize("'=x")).toBe("''=x");
    expect(neutralize("'already")).toBe("''already");
    const texts = ['=x', "'=x", "''=x", 'x', "'x", '-1', "'-1", '', "'"];
    expect(new Set(texts.map(neutralize)).size).toBe(texts.length);
    for (const t of texts) {
      const written = neutralize(t);
      expect(written !== t ? written.slice(1) : written).toBe(t);
    }
  });

  it('writes numbers as numbers: a negative number is not prefixed, a negative-looking string is', () => {
    expect(cell(-3)).toBe(-3);
    expect(cell('-3')).toBe("'-3");
    expect(cell(0)).toBe(0);
    expect(cell(Number.NaN)).toBe('');
    expect(cell(Number.POSITIVE_INFINITY)).toBe('');
    expect(cell(null)).toBe('');
    expect(cell(undefined)).toBe('');
    expect(cell(true)).toBe('true');
    expect(cell(false)).toBe('false');
  });

  it('redacts free text on the way out', () => {
    expect(text('use token sgp_abcdef1234567890 here')).not.toContain('sgp_abcdef1234567890');
    expect(text(null)).toBeNull();
  });
});

describe('writeCsv', () => {
  const columns: Array<Column<{ a: unknown; b: unknown }>> = [
    { name: 'a', value: (r) => r.a as never },
    { name: 'b', value: (r) => r.b as never },
  ];

  it('writes a header, quotes what needs quoting, UTF-8, \\n line ends', async () => {
    const file = path.join(dir, 'x.csv');
    const n = await writeCsv(file, columns, [
      { a: 'plain', b: 1.5 },
      { a: 'comma, "quote"', b: -2 },
      { a: 'line\nbreak', b: null },
      { a: 'ünïcødé 漢字 🎉', b: '=1+1' },
    ]);
    expect(n).toBe(4);
    const raw = fs.readFileSync(file, 'utf8');
    expect(raw.charCodeAt(0)).not.toBe(0xfeff);
    expect(raw).toBe('a,b\nplain,1.5\n"comma, ""quote""",-2\n"line\nbreak",\nünïcødé 漢字 🎉,\'=1+1\n');
    expect(parseCsv(raw)).toEqual([
      ['a', 'b'],
      ['plain', '1.5'],
      ['comma, "quote"', '-2'],
      ['line\nbreak', ''],
      ['ünïcødé 漢字 🎉', "'=1+1"],
    ]);
  });

  it('writes only the header for no rows, and a BOM when asked', async () => {
    const file = path.join(dir, 'empty.csv');
    expect(await writeCsv(file, columns, [], { bom: true })).toBe(0);
    const raw = fs.readFileSync(file, 'utf8');
    expect(raw).toBe('\ufeffa,b\n');
  });

  it('pulls rows lazily from a generator (backpressure) and takes async iterables', async () => {
    let produced = 0;
    function* many() {
      for (let i = 0; i < 50_000; i++) {
        produced++;
        yield { a: `row ${i}`, b: i };
      }
    }
    const file = path.join(dir, 'many.csv');
    const gen = many();
    const first = gen.next();
    expect(produced).toBe(1);
    expect(first.done).toBe(false);
    expect(await writeCsv(file, columns, gen)).toBe(49_999);
    expect(fs.readFileSync(file, 'utf8').split('\n').length).toBe(50_001);

    async function* slow() {
      yield { a: 'x', b: 1 };
      await new Promise((r) => setTimeout(r, 5));
      yield { a: 'y', b: 2 };
    }
    const file2 = path.join(dir, 'async.csv');
    expect(await writeCsv(file2, columns, slow())).toBe(2);
    expect(fs.readFileSync(file2, 'utf8')).toBe('a,b\nx,1\ny,2\n');
  });

  it('writes a row longer than a chunk, and characters of every UTF-8 length, whole', async () => {
    // 700,000 UTF-16 units: past the chunk's buffer (three bytes a unit of a 256 KB chunk), so it grows.
    const long = 'a é 漢 🎉 '.repeat(70_000);
    const file = path.join(dir, 'long.csv');
    expect(await writeCsv(file, columns, [{ a: 'before', b: 1 }, { a: long, b: 2 }, { a: 'after 🎉', b: 3 }])).toBe(3);
    expect(fs.readFileSync(file, 'utf8')).toBe(`a,b\nbefore,1\n${long},2\nafter 🎉,3\n`);
  });

  it('rejects when the file cannot be written', async () => {
    await expect(writeCsv(path.join(dir, 'missing', 'x.csv'), columns, [{ a: 1, b: 2 }])).rejects.toThrow(/ENOENT/);
  });

  it('writes the same bytes as csv-stringify (RFC 4180 quoting, CR quoted too) for awkward fields, over many rows and chunks', async () => {
    const awkward = ['', 'plain', ' lead', 'a,b', 'say "hi"', '"', '""', 'cr\rinside', 'lf\ninside', 'crlf\r\n', ',', '\t', 'ünï 漢字 🎉', "'q", 0, -1.5, 1e21, 123456789];
    const rows = Array.from({ length: 30_000 }, (_, i) => ({ a: awkward[i % awkward.length], b: awkward[(i * 7 + 3) % awkward.length] }));
    const file = path.join(dir, 'rfc.csv');
    await writeCsv(file, columns, rows);
    const expected = stringify(
      rows.map((r) => [cell(r.a as never), cell(r.b as never)]),
      // csv-stringify 6.9 leaves a lone CR bare; spreadsheets end a line there, so dsbench quotes it.
      { header: true, columns: ['a', 'b'], record_delimiter: 'unix', quoted_match: '\r' },
    );
    expect(fs.readFileSync(file, 'utf8')).toBe(expected);
    expect(csvField('a"b')).toBe('"a""b"');
  });
});

describe('CsvFile', () => {
  const columns: Array<Column<{ a: unknown; b: unknown }>> = [
    { name: 'a', value: (r) => r.a as never },
    { name: 'b', value: (r) => r.b as never },
  ];

  it('writes the rows handed to it, over several chunks, with the bytes writeCsv writes of the same rows', async () => {
    const rows = Array.from({ length: 20_000 }, (_, i) => ({ a: i % 3 === 0 ? `say "hi", ${i} 🎉` : `=row ${i}`, b: i % 5 === 0 ? null : i / 7 }));
    const pulled = path.join(dir, 'pulled.csv');
    await writeCsv(pulled, columns, rows, { bom: true });
    const pushed = new CsvFile(path.join(dir, 'pushed.csv'), columns, { bom: true });
    for (const row of rows) pushed.row(row);
    expect(fs.statSync(`${pushed.file}.partial`).size).toBeGreaterThan(0);
    pushed.end();
    expect(pushed.count).toBe(rows.length);
    expect(fs.readFileSync(pushed.file, 'utf8') === fs.readFileSync(pulled, 'utf8')).toBe(true);
  });

  it('is written beside its name and renamed at the end: a cut file never reads as whole', () => {
    const file = new CsvFile(path.join(dir, 'cut.csv'), columns);
    file.row({ a: 'x'.repeat(300_000), b: 1 });
    // Killed here: the chunks written are in cut.csv.partial, and no cut.csv exists.
    expect(fs.existsSync(file.file)).toBe(false);
    expect(fs.statSync(`${file.file}.partial`).size).toBe('a,b\n'.length + 300_000 + ',1\n'.length);
    file.row({ a: 'last', b: 2 });
    file.end();
    expect(fs.readFileSync(file.file, 'utf8').endsWith('last,2\n')).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['cut.csv']);
  });

  it('abandoned after a failure, closes its file and leaves nothing', () => {
    const file = new CsvFile(path.join(dir, 'partial.csv'), columns);
    file.row({ a: 'x'.repeat(300_000), b: 1 });
    file.abandon();
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
