// Writes schemas/extraction-configuration.schema.json from the zod schema, the single source.
// Run after changing the configuration schema: `npx tsx scripts/generate-config-schema.ts`.

import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { extractionConfigurationJsonSchema } from '../src/extraction-engine/index.ts';

export const extractionConfigurationSchemaPath = fileURLToPath(new URL('../schemas/extraction-configuration.schema.json', import.meta.url));

export function renderExtractionConfigurationSchema(): string {
  return `${JSON.stringify(extractionConfigurationJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(extractionConfigurationSchemaPath, renderExtractionConfigurationSchema());
  console.log(`wrote ${extractionConfigurationSchemaPath}`);
}
