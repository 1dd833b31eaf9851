// Writes schemas/workflow-definition.schema.json from the zod schema, the single source.
// Run after changing the definition schema: `npx tsx scripts/generate-workflow-schema.ts`.

import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { workflowDefinitionJsonSchema } from '../src/workflows/workflow-definition.ts';

export const workflowDefinitionSchemaPath = fileURLToPath(new URL('../schemas/workflow-definition.schema.json', import.meta.url));

export function renderWorkflowDefinitionSchema(): string {
  return `${JSON.stringify(workflowDefinitionJsonSchema(), null, 2)}\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await writeFile(workflowDefinitionSchemaPath, renderWorkflowDefinitionSchema());
  console.log(`wrote ${workflowDefinitionSchemaPath}`);
}
