/*
 * The emulator's symbol index: the definitions a `type:symbol` search finds, read from a file's text with
 * line patterns, in the spirit of the platform's ctags-based symbols (no parser, so a definition written
 * across lines, or hidden in a string, can be missed or mistaken).
 *
 * JavaScript and TypeScript
 * - `class X` CLASS, `interface X` INTERFACE, `enum X` ENUM, `function X(` FUNCTION (with `export`,
 *   `default`, `declare`, `abstract`, `async`, `function*`), at any indentation;
 * - top-level `const|let|var X = function…`, `= (…) =>`, `= async (…) =>`, `= x =>` FUNCTION; top-level
 *   `const X_Y = …` (upper case) CONSTANT;
 * - `exports.X = function…` and `module.exports.X = function…` FUNCTION;
 * - `X.prototype.y = function…` METHOD y, container X;
 * - in a class body (the lines indented as its first member, before the line that closes it at the
 *   class's own indentation), `name(…) {` with modifiers (`static`, `async`, `get`, `set`, `#private`…)
 *   METHOD, container the class; `constructor` is CONSTRUCTOR.
 * Python: `class X` CLASS; `def x(` FUNCTION at the top level, METHOD (container the class) inside one.
 * Go: `func X(` FUNCTION, `func (r *T) X(` METHOD (container T), `type X struct|interface` STRUCT|INTERFACE.
 * Other languages, lines over 1,000 characters (minified code) and files without any of these have none.
 * Lines and columns are 0-based here; the wire's `line` is 1-based.
 */
import { languageOf } from './languages.js';

export type SymbolKind = 'CLASS' | 'INTERFACE' | 'ENUM' | 'FUNCTION' | 'METHOD' | 'CONSTRUCTOR' | 'CONSTANT' | 'STRUCT';

export interface SymbolDefinition {
  name: string;
  kind: SymbolKind;
  /** The class or type it belongs to; "" at the top level. */
  containerName: string;
  /** 0-based line and column of the name. */
  line: number;
  column: number;
}

const LONGEST_LINE = 1_000;
const NAME = String.raw`[A-Za-z_$][\w$]*`;
const JS_DECLARATION = new RegExp(
  String.raw`^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:(class|interface|enum)|(?:const\s+)?(enum)|(?:async\s+)?(function)\s*\*?)\s+(${NAME})`,
);
const JS_FUNCTION_VALUE = new RegExp(
  String.raw`^(?:export\s+)?(?:const|let|var)\s+(${NAME})\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|${NAME}\s*=>)`,
);
const JS_CONSTANT = /^(?:export\s+)?const\s+([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|[A-Z]{2,}[A-Z0-9]*)\s*(?::[^=]+)?=/;
const JS_EXPORTED_FUNCTION = new RegExp(String.raw`^\s*(?:module\.)?exports\.(${NAME})\s*=\s*(?:async\s+)?function\b`);
const JS_PROTOTYPE_METHOD = new RegExp(String.raw`^\s*(${NAME})\.prototype\.(${NAME})\s*=\s*(?:async\s+)?function\b`);
const JS_METHOD = new RegExp(
  String.raw`^\s*(?:(?:static|async|get|set|public|private|protected|readonly|override|abstract)\s+)*\*?\s*(#?${NAME})\s*(?:<[^>]*>)?\s*\([^;]*\{.*$`,
);
const NOT_METHODS = new Set(['if', 'for', 'while', 'switch', 'catch', 'function', 'return', 'with', 'do', 'else', 'try', 'new', 'typeof', 'await', 'super']);

const PY_CLASS = new RegExp(String.raw`^(\s*)class\s+(${NAME})\b`);
const PY_DEF = new RegExp(String.raw`^(\s*)(?:async\s+)?def\s+(${NAME})\s*\(`);
const GO_FUNC = new RegExp(String.raw`^func\s+(?:\(\s*(?:${NAME}\s+)?\*?(${NAME})(?:\[[^\]]*\])?\s*\)\s*)?(${NAME})\s*[[(]`);
const GO_TYPE = new RegExp(String.raw`^type\s+(${NAME})(?:\[[^\]]*\])?\s+(struct|interface)\b`);

/** The symbols a file defines, in line order. */
export function symbolsOf(path: string, text: string): SymbolDefinition[] {
  const language = languageOf(path);
  if (language === 'JavaScript' || language === 'TypeScript') return javascriptSymbols(text);
  if (language === 'Python' && path.endsWith('.py')) return pythonSymbols(text);
  if (language === 'Go') return goSymbols(text);
  return [];
}

function lines(text: string): string[] {
  return text.split('\n');
}

function indentation(line: string): number {
  return /^\s*/.exec(line)![0].length;
}

const NAME_CHAR = /[\w$]/;

/**
 * Column of `name` as a whole name (not after a name character or `#`, not before a name character) at or
 * after `from`, else of its first occurrence. A scan, not a regular expression made for each symbol: a large
 * package has tens of thousands of them.
 */
function at(line: string, name: string, from = 0): number {
  for (let i = line.indexOf(name, from); i >= 0; i = line.indexOf(name, i + 1)) {
    const before = i > from ? line[i - 1]! : '';
    const after = line[i + name.length] ?? '';
    if (!NAME_CHAR.test(before) && before !== '#' && !NAME_CHAR.test(after)) return i;
  }
  return line.indexOf(name);
}

interface OpenClass {
  name: string;
  indent: number;
  memberIndent: number | undefined;
}

function javascriptSymbols(text: string): SymbolDefinition[] {
  const out: SymbolDefinition[] = [];
  let open: OpenClass | undefined;
  lines(text).forEach((line, n) => {
    if (line.length > LONGEST_LINE || line.trim() === '') return;
    const indent = indentation(line);
    const add = (name: string, kind: SymbolKind, containerName = '') => out.push({ name, kind, containerName, line: n, column: at(line, name) });
    if (open) {
      if (indent <= open.indent) {
        if (indent === open.indent && /^\s*}/.test(line)) {
          open = undefined;
          return;
        }
        if (indent < open.indent) open = undefined;
      } else {
        open.memberIndent ??= indent;
        const method = indent === open.memberIndent ? JS_METHOD.exec(line) : null;
        if (method && !NOT_METHODS.has(method[1]!)) add(method[1]!, method[1] === 'constructor' ? 'CONSTRUCTOR' : 'METHOD', open.name);
        return;
      }
    }
    const declaration = JS_DECLARATION.exec(line);
    if (declaration) {
      const keyword = declaration[1] ?? declaration[2] ?? declaration[3]!;
      const name = declaration[4]!;
      const kind: SymbolKind = keyword === 'class' ? 'CLASS' : keyword === 'interface' ? 'INTERFACE' : keyword === 'enum' ? 'ENUM' : 'FUNCTION';
      add(name, kind);
      // A class whose body opens on its line and does not close there has members to read.
      if (kind === 'CLASS' && /\{\s*$/.test(line)) open = { name, indent, memberIndent: undefined };
      return;
    }
    if (indent === 0) {
      const value = JS_FUNCTION_VALUE.exec(line);
      if (value) return add(value[1]!, 'FUNCTION');
      const constant = JS_CONSTANT.exec(line);
      if (constant) return add(constant[1]!, 'CONSTANT');
    }
    const exported = JS_EXPORTED_FUNCTION.exec(line);
    if (exported) return add(exported[1]!, 'FUNCTION');
    const prototype = JS_PROTOTYPE_METHOD.exec(line);
    if (prototype) out.push({ name: prototype[2]!, kind: 'METHOD', containerName: prototype[1]!, line: n, column: line.indexOf(`.prototype.${prototype[2]}`) + 11 });
  });
  return out;
}

function pythonSymbols(text: string): SymbolDefinition[] {
  const out: SymbolDefinition[] = [];
  const classes: Array<{ name: string; indent: number; memberIndent?: number }> = [];
  lines(text).forEach((line, n) => {
    if (line.length > LONGEST_LINE || line.trim() === '' || /^\s*#/.test(line)) return;
    const indent = indentation(line);
    while (classes.length > 0 && classes.at(-1)!.indent >= indent) classes.pop();
    const enclosing = classes.at(-1);
    if (enclosing) enclosing.memberIndent ??= indent;
    const cls = PY_CLASS.exec(line);
    if (cls) {
      out.push({ name: cls[2]!, kind: 'CLASS', containerName: classes.at(-1)?.name ?? '', line: n, column: at(line, cls[2]!) });
      classes.push({ name: cls[2]!, indent });
      return;
    }
    const def = PY_DEF.exec(line);
    if (!def) return;
    // Methods are defs directly in a class body; a def nested in a function or method is not a symbol.
    const inClass = enclosing !== undefined && indent === enclosing.memberIndent;
    if (indent > 0 && !inClass) return;
    out.push({ name: def[2]!, kind: inClass ? 'METHOD' : 'FUNCTION', containerName: inClass ? enclosing.name : '', line: n, column: at(line, def[2]!) });
  });
  return out;
}

function goSymbols(text: string): SymbolDefinition[] {
  const out: SymbolDefinition[] = [];
  lines(text).forEach((line, n) => {
    if (line.length > LONGEST_LINE) return;
    const func = GO_FUNC.exec(line);
    if (func) {
      const name = func[2]!;
      const afterReceiver = func[1] ? line.indexOf(')') + 1 : 0;
      out.push({ name, kind: func[1] ? 'METHOD' : 'FUNCTION', containerName: func[1] ?? '', line: n, column: at(line, name, afterReceiver) });
      return;
    }
    const type = GO_TYPE.exec(line);
    if (type) out.push({ name: type[1]!, kind: type[2] === 'struct' ? 'STRUCT' : 'INTERFACE', containerName: '', line: n, column: at(line, type[1]!) });
  });
  return out;
}
