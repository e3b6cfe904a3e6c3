// Regenerates suites/suite.schema.json from the zod schema: node --import tsx scripts/write-suite-schema.ts
import { writeFile } from 'node:fs/promises';
import { renderSuiteJsonSchema, SUITE_JSON_SCHEMA_FILE } from '../src/config/suite-json-schema.js';

const target = new URL(`../${SUITE_JSON_SCHEMA_FILE}`, import.meta.url);
await writeFile(target, renderSuiteJsonSchema());
console.log(`wrote ${SUITE_JSON_SCHEMA_FILE}`);
