import { asTaskError } from '../../src/extractions/extraction-processing.ts';
import { extractionProcessor } from '../../src/extractions/processing-wiring.ts';
import { executionInputSchema } from '../../src/extractions/task-inputs.ts';

export async function handler(event: unknown) {
  try {
    return await extractionProcessor().fetchDocument(executionInputSchema.parse(event));
  } catch (error) {
    throw asTaskError(error);
  }
}
