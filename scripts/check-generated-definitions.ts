// Checks the ground truth of a suite generated from the emulator's default corpus, reading the files from
// disk (node_modules), not through the emulator: for every definition question, does the cited file define
// the symbol at that line? A definition is judged by forms written here, apart from the emulator's symbol
// index: `class|function|interface|enum|def|func NAME`, `NAME = function|(…) =>`, `NAME: function`,
// `exports.NAME =`, `X.prototype.NAME =`, or a method head `NAME(…) {`.
//   node --import tsx scripts/check-generated-definitions.ts suite.yaml [...]
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadSuite } from '../src/config/load-suite.js';

const NODE_MODULES = new URL('../node_modules/', import.meta.url).pathname;

/** `github.com/npm/pkg` is node_modules/pkg; `github.com/scope/pkg` is node_modules/@scope/pkg. */
function folderOf(repository: string): string {
  const [, owner, name] = repository.split('/');
  return path.join(NODE_MODULES, owner === 'npm' ? name! : `@${owner}/${name}`);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function defines(line: string, name: string): boolean {
  const n = escape(name);
  return [
    new RegExp(`\\b(?:class|function\\*?|interface|enum|def|func)\\s+${n}\\b`),
    new RegExp(`(?:^|[\\s.])${n}\\s*(?::[^=]*)?=\\s*(?:async\\s+)?(?:function\\b|\\([^)]*\\)\\s*(?::[^=]*)?=>|[\\w$]+\\s*=>)`),
    new RegExp(`\\bexports\\.${n}\\s*=|\\.prototype\\.${n}\\s*=`),
    new RegExp(`^\\s*(?:(?:static|async|get|set|public|private|protected|override|readonly)\\s+)*\\*?\\s*#?${n}\\s*(?:<[^>]*>)?\\s*\\([^;]*\\{`),
    new RegExp(`^func\\s+\\([^)]*\\)\\s*${n}\\s*\\(`),
  ].some((re) => re.test(line));
}

let checked = 0;
const wrong: string[] = [];
for (const file of process.argv.slice(2)) {
  const { suite } = await loadSuite(file);
  for (const q of suite.questions) {
    const g = q.generated;
    if (g?.kind !== 'definition' || !g.match) continue;
    checked++;
    const text = await readFile(path.join(folderOf(g.repository), g.match.path), 'utf8').catch(() => undefined);
    const line = text?.split('\n')[g.match.line - 1];
    if (line === undefined) wrong.push(`${file}: ${q.id}: ${g.match.path}:${g.match.line} does not exist`);
    else if (!defines(line, g.symbol)) wrong.push(`${file}: ${q.id}: ${g.match.path}:${g.match.line} does not define ${g.symbol}: ${line.trim().slice(0, 120)}`);
    else if (!(q.expect?.cites ?? []).includes(g.match.path)) wrong.push(`${file}: ${q.id}: cites does not name ${g.match.path}`);
  }
}
for (const w of wrong) console.log(w);
console.log(`${checked - wrong.length} of ${checked} definition questions cite a file that defines their symbol at the line given (${checked === 0 ? '-' : ((100 * (checked - wrong.length)) / checked).toFixed(1)}%)`);
process.exitCode = wrong.length > 0 ? 1 : 0;
