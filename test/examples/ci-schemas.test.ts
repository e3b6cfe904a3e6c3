// The CI examples against their engines' own schemas, offline: the GitHub Actions workflow through GitHub's
// workflow parser (@actions/workflow-parser, the schema the Actions service applies), the Kubernetes manifests
// through kubernetes-models' OpenAPI validation. Each check is shown to fail on a broken copy.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NoOperationTraceWriter, parseWorkflow } from '@actions/workflow-parser';
import { CronJob, Job } from 'kubernetes-models/batch/v1';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/cli.js';

const read = (file: string) => readFileSync(path.join(ROOT, 'examples', file), 'utf8');

function workflowErrors(name: string, content: string): string[] {
  return parseWorkflow({ name, content }, new NoOperationTraceWriter()).context.errors.getErrors().map((e) => e.message);
}

describe('against the engines\' schemas', () => {
  it('the GitHub Actions workflow is one the Actions service accepts', () => {
    const text = read('ci/github-nightly.yml');
    expect(workflowErrors('github-nightly.yml', text)).toEqual([]);
    expect(workflowErrors('broken.yml', text.replace('runs-on:', 'runs_on:'))).toContain("broken.yml (Line: 13, Col: 5): Unexpected value 'runs_on'");
  });

  it('the Indexed Job and the CronJob are valid batch/v1 objects', () => {
    const job = parse(read('kubernetes/indexed-job.yaml')) as ConstructorParameters<typeof Job>[0] & { spec: object };
    expect(() => new Job(job).validate()).not.toThrow();
    expect(() => new CronJob(parse(read('kubernetes/cronjob.yaml')) as ConstructorParameters<typeof CronJob>[0]).validate()).not.toThrow();
    expect(() => new Job({ ...job, spec: { ...job.spec, completions: 'four' } } as unknown as ConstructorParameters<typeof Job>[0]).validate()).toThrow('completions must be integer');
  });
});
