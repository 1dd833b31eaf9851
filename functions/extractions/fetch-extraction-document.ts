import { asTaskError } from '../../src/extractions/extraction-processing.ts';
import { documentDownload } from '../../src/composition/extraction-tasks.ts';
import { executionInputSchema } from '../../src/extractions/task-inputs.ts';
import { stateMachineTask } from '../../src/platform/invocation-logging.ts';

export const handler = stateMachineTask((event) => documentDownload().fetchDocument(executionInputSchema.parse(event)), asTaskError);
