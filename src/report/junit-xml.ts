import { mkdirSync } from 'node:fs';
import { writeWhole } from './whole-file.js';
import path from 'node:path';
import { redact } from '../redact.js';

// JUnit XML for CI systems (GitHub, GitLab, Jenkins read the same subset): <testsuites> of <testsuite>,
// each <testcase> with at most one <failure> (a check failed, a gate failed) or <error> (the item did not
// get an answer it could be judged on). A run's cases are made in junit.ts, a comparison's in
// compare/compare-junit.ts.

// XML 1.0 forbids most control characters even escaped.
// eslint-disable-next-line no-control-regex
const INVALID_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;

export function xmlText(text: string): string {
  return redact(text).replace(INVALID_XML, '').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const oneLine = (text: string, max = 500): string => {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

export interface Case {
  classname: string;
  name: string;
  seconds: number;
  failure?: { type: string; message: string; body: string } | undefined;
  error?: { type: string; message: string; body: string } | undefined;
  /** Why the case was not judged (a `<skipped>` element). */
  skipped?: string | undefined;
}

function caseXml(c: Case): string {
  const open = `    <testcase classname="${xmlText(c.classname)}" name="${xmlText(c.name)}" time="${c.seconds.toFixed(3)}"`;
  const problem = c.error ? ['error', c.error] : c.failure ? ['failure', c.failure] : undefined;
  if (!problem) return c.skipped === undefined ? `${open}/>\n` : `${open}>\n      <skipped message="${xmlText(oneLine(c.skipped))}"/>\n    </testcase>\n`;
  const [tag, p] = problem as [string, { type: string; message: string; body: string }];
  return `${open}>\n      <${tag} type="${xmlText(p.type)}" message="${xmlText(oneLine(p.message))}">${xmlText(p.body)}</${tag}>\n    </testcase>\n`;
}

export class Suites {
  private readonly suites = new Map<string, { cases: string[]; failures: number; errors: number; skipped: number; seconds: number }>();

  /** Fixes a suite's place in the output before its cases are known. */
  reserve(suite: string) {
    let s = this.suites.get(suite);
    if (!s) this.suites.set(suite, (s = { cases: [], failures: 0, errors: 0, skipped: 0, seconds: 0 }));
    return s;
  }

  add(suite: string, c: Case): void {
    const s = this.reserve(suite);
    s.cases.push(caseXml(c));
    if (c.error) s.errors++;
    else if (c.failure) s.failures++;
    else if (c.skipped !== undefined) s.skipped++;
    s.seconds += c.seconds;
  }

  totals(): { tests: number; failures: number; errors: number } {
    let tests = 0;
    let failures = 0;
    let errors = 0;
    for (const s of this.suites.values()) {
      tests += s.cases.length;
      failures += s.failures;
      errors += s.errors;
    }
    return { tests, failures, errors };
  }

  xml(name: string, timestamp: string): string {
    const t = this.totals();
    const seconds = [...this.suites.values()].reduce((sum, s) => sum + s.seconds, 0);
    const parts = [`<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xmlText(name)}" tests="${t.tests}" failures="${t.failures}" errors="${t.errors}" time="${seconds.toFixed(3)}">\n`];
    let id = 0;
    for (const [suite, s] of this.suites) {
      parts.push(
        `  <testsuite name="${xmlText(suite)}" id="${id++}" tests="${s.cases.length}" failures="${s.failures}" errors="${s.errors}" skipped="${s.skipped}" time="${s.seconds.toFixed(3)}" timestamp="${xmlText(timestamp.replace(/\.\d+Z$/, ''))}">\n`,
        ...s.cases,
        '  </testsuite>\n',
      );
    }
    parts.push('</testsuites>\n');
    return parts.join('');
  }
}

export function writeJunitFile(file: string, xml: string): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeWhole(file, xml);
}
