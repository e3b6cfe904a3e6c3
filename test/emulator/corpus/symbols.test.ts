import { describe, expect, it } from 'vitest';
import { symbolsOf } from '../../../src/emulator/corpus/symbols.js';

const brief = (path: string, text: string) => symbolsOf(path, text).map((s) => `${s.kind} ${s.containerName ? `${s.containerName}.` : ''}${s.name} @${s.line + 1}:${s.column + 1}`);

describe('symbol index', () => {
  it('finds JavaScript and TypeScript definitions with their kinds, containers, lines and columns', () => {
    const text = [
      "'use strict'",
      'class RetryHandler extends Handler {',
      '  constructor (opts) {',
      '    if (opts) {',
      '      this.run(opts)',
      '    }',
      '  }',
      '  static async #retry (err, cb) {',
      '    for (const x of y) {}',
      '  }',
      '  get size () { return 1 }',
      '}',
      'function parseHeaders (headers) {}',
      'export async function* walk<T>(x: T) {}',
      'export const makeThing = async (a) => a',
      'const MAX_RETRIES = 3',
      'exports.isStream = function (x) {}',
      'Agent.prototype.dispatchNow = function () {}',
      'export interface Options {}',
      'export const enum Color { Red }',
      '  notAMethod(call)',
    ].join('\n');
    expect(brief('lib/retry.ts', text)).toEqual([
      'CLASS RetryHandler @2:7',
      'CONSTRUCTOR RetryHandler.constructor @3:3',
      'METHOD RetryHandler.#retry @8:16',
      'METHOD RetryHandler.size @11:7',
      'FUNCTION parseHeaders @13:10',
      'FUNCTION walk @14:24',
      'FUNCTION makeThing @15:14',
      'CONSTANT MAX_RETRIES @16:7',
      'FUNCTION isStream @17:9',
      'METHOD Agent.dispatchNow @18:17',
      'INTERFACE Options @19:18',
      'ENUM Color @20:19',
    ]);
  });

  it('reads Python and Go definitions, and nothing in other files or minified lines', () => {
    expect(brief('x.py', 'class Pool:\n    def acquire(self):\n        def inner():\n            pass\ndef main():\n    pass\n')).toEqual([
      'CLASS Pool @1:7',
      'METHOD Pool.acquire @2:9',
      'FUNCTION main @5:5',
    ]);
    expect(brief('x.go', 'package x\nfunc (r *SearchResultsResolver) Results() {}\nfunc doResults(ctx context.Context) {}\ntype Server struct {\n')).toEqual([
      'METHOD SearchResultsResolver.Results @2:33',
      'FUNCTION doResults @3:6',
      'STRUCT Server @4:6',
    ]);
    expect(symbolsOf('README.md', 'class Nope {}\n')).toEqual([]);
    expect(symbolsOf('x.min.js', `function ${'a'.repeat(1200)}() {}`)).toEqual([]);
  });
});
