import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { renderSuiteJsonSchema, SUITE_JSON_SCHEMA_FILE, suiteJsonSchema } from '../../src/config/suite-json-schema.js';

type JsonSchema = { properties?: Record<string, JsonSchema>; items?: JsonSchema; anyOf?: JsonSchema[]; description?: string };

/** Paths of properties that have no description, so editors would show no help for them. */
function undescribed(schema: JsonSchema, at = ''): string[] {
  const own = Object.entries(schema.properties ?? {}).flatMap(([key, child]) => [
    ...(child.description ? [] : [`${at}.${key}`]),
    ...undescribed(child, `${at}.${key}`),
  ]);
  const nested = [...(schema.items ? [schema.items] : []), ...(schema.anyOf ?? [])].flatMap((child) => undescribed(child, `${at}[]`));
  return [...own, ...nested];
}

describe('suite JSON Schema', () => {
  it(`matches the committed ${SUITE_JSON_SCHEMA_FILE} (regenerate with node --import tsx scripts/write-suite-schema.ts)`, async () => {
    const committed = await readFile(new URL(`../../${SUITE_JSON_SCHEMA_FILE}`, import.meta.url), 'utf8');
    expect(committed).toBe(renderSuiteJsonSchema());
  });

  it('describes every field and leaves defaulted fields optional', () => {
    const schema = suiteJsonSchema() as JsonSchema & { required?: string[]; additionalProperties?: boolean };
    expect(undescribed(schema)).toEqual([]);
    expect(schema.required).toEqual(['name']);
    expect(schema.additionalProperties).toBe(false);
  });
});
