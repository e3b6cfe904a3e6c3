import { z } from 'zod';
import { SuiteSchema } from './suite.js';

/** Where the generated schema is committed, relative to the package root. */
export const SUITE_JSON_SCHEMA_FILE = 'suites/suite.schema.json';

/**
 * JSON Schema of a suite file, generated from the zod schema's input side (so fields with defaults
 * are optional and durations take their written forms). draft-07 because editors support it best.
 */
export function suiteJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(SuiteSchema, {
    io: 'input',
    target: 'draft-07',
    // z.number().int() bounds integers to the safe range; editors would show that noise on every count.
    override: ({ jsonSchema }) => {
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    },
  });
}

/** The committed file's exact text, so a test can tell when it is stale. */
export function renderSuiteJsonSchema(): string {
  return `${JSON.stringify(suiteJsonSchema(), null, 2)}\n`;
}
