// Regenerates schemas/*.schema.json from the outputs' zod schemas: npm run schema:outputs
import { mkdir, writeFile } from 'node:fs/promises';
import { OUTPUT_SCHEMAS, renderOutputSchema } from './output-schemas.js';

await mkdir(new URL('../schemas/', import.meta.url), { recursive: true });
for (const entry of OUTPUT_SCHEMAS) {
  await writeFile(new URL(`../${entry.file}`, import.meta.url), renderOutputSchema(entry));
  console.log(`wrote ${entry.file}`);
}
