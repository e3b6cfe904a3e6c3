import { z } from 'zod';
import { notifyPayloadSchema } from '../src/notify/payload.js';
import { compareJsonSchemaV1, historyJsonSchemaV1, reportJsonSchemaV1 } from '../src/report/output-schemas.js';

// The JSON Schemas of dsbench's machine-readable outputs, generated from their zod schemas and shipped in
// schemas/ (package.json `files`). One file per version: a receiver pinned to v1 keeps its schema when v2 comes.

export const OUTPUT_SCHEMAS = [
  { file: 'schemas/report.v1.schema.json', title: 'dsbench report --json (report.json), schemaVersion 1', schema: reportJsonSchemaV1 },
  { file: 'schemas/compare.v1.schema.json', title: 'dsbench compare --json (compare.json), schemaVersion 1', schema: compareJsonSchemaV1 },
  { file: 'schemas/history.v1.schema.json', title: 'dsbench report --history N --json (history.json), schemaVersion 1', schema: historyJsonSchemaV1 },
  { file: 'schemas/notify.v1.schema.json', title: 'dsbench run --notify json=URL payload, schemaVersion 1', schema: notifyPayloadSchema },
] as const;

/** A schema file's exact text, so a test can tell when the committed one is stale. */
export function renderOutputSchema(entry: (typeof OUTPUT_SCHEMAS)[number]): string {
  const json = z.toJSONSchema(entry.schema, {
    io: 'output',
    target: 'draft-07',
    // z.number().int() bounds integers to the safe range; noise for a reader of the schema.
    override: ({ jsonSchema }) => {
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
    },
  });
  return `${JSON.stringify({ ...json, title: entry.title }, null, 2)}\n`;
}
