import { stateMachineTask } from '../../src/platform/invocation-logging.ts';
import { asTaskError } from '../../src/platform/task-errors.ts';
import { nestedRunStartInputSchema } from '../../src/workflows/task-inputs.ts';
import { runEngine } from '../../src/composition/workflows.ts';

export const handler = stateMachineTask((event) => runEngine().startNestedRun(nestedRunStartInputSchema.parse(event)), asTaskError);
