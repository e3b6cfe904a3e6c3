// The baseline of the export benchmark: the sqlite3 command-line tool running the query questions.csv is
// read with (questionExportSql) on the same database, writing CSV with a header: the same rows, without
// redaction or formula neutralization.
import { spawnSync } from 'node:child_process';
import { questionExportSql } from '../../src/store/queries.js';

/** The sqlite3 tool's version (e.g. [3, 40, 1]), or undefined when it is not installed. */
export function sqlite3Version(): number[] | undefined {
  const result = spawnSync('sqlite3', ['--version'], { encoding: 'utf8' });
  if (result.error || result.status !== 0) return undefined;
  return result.stdout.split(' ')[0]!.split('.').map(Number);
}

/**
 * SQLite before 3.44 has no ORDER BY inside an aggregate: `json_group_array(x ORDER BY y) FROM t WHERE w`
 * becomes `json_group_array(v) FROM (SELECT x AS v FROM t WHERE w ORDER BY y)`, which gives the same arrays.
 */
export function withoutOrderedAggregates(sql: string): string {
  let out = '';
  let from = 0;
  for (;;) {
    const at = sql.indexOf('json_group_array(', from);
    if (at < 0) return out + sql.slice(from);
    const argEnd = closingParen(sql, at + 'json_group_array'.length);
    const arg = sql.slice(at + 'json_group_array('.length, argEnd);
    const orderAt = arg.lastIndexOf(' ORDER BY ');
    // The rest of the enclosing subquery (FROM ... WHERE ...), up to its closing parenthesis.
    const restEnd = closingParen(sql, argEnd + 1, 1);
    const rest = sql.slice(argEnd + 1, restEnd).trim();
    out += `${sql.slice(from, at)}json_group_array(v) FROM (SELECT ${arg.slice(0, orderAt)} AS v ${rest} ORDER BY ${arg.slice(orderAt + ' ORDER BY '.length)})`;
    from = restEnd;
  }
}

/** Index of the parenthesis closing the one open at `open` (or, with depth 1, the one enclosing `open`). */
function closingParen(sql: string, open: number, depth = 0): number {
  for (let i = open; i < sql.length; i++) {
    if (sql[i] === '(') depth++;
    else if (sql[i] === ')' && --depth === 0) return i;
  }
  throw new Error(`unbalanced parentheses in the export query after offset ${open}`);
}

/** The export query as the installed sqlite3 runs it, with the run id bound and no target filter. */
export function baselineSql(runId: number, version: number[]): string {
  const [major = 0, minor = 0] = version;
  const sql = major > 3 || (major === 3 && minor >= 44) ? questionExportSql() : withoutOrderedAggregates(questionExportSql());
  return `${sql.replace('?', String(runId)).replaceAll('?', 'NULL')};\n`;
}
