import { asTaskError } from '../../src/extractions/extraction-processing.ts';
import { documentExtraction } from '../../src/composition/extraction-processing.ts';
import { executionInputSchema } from '../../src/extractions/task-inputs.ts';
import { stateMachineTask } from '../../src/platform/invocation-logging.ts';

export const handler = stateMachineTask((event) => documentExtraction().extractDocument(executionInputSchema.parse(event)), asTaskError);
