import { asTaskError } from '../../src/extractions/extraction-processing.ts';
import { extractionProcessor } from '../../src/composition/extraction-tasks.ts';
import { recordOutcomeInputSchema } from '../../src/extractions/task-inputs.ts';
import { stateMachineTask } from '../../src/platform/invocation-logging.ts';

export const handler = stateMachineTask((event) => extractionProcessor().recordOutcome(recordOutcomeInputSchema.parse(event)), asTaskError);
