import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { StateMachine } from 'aws-local-stepfunctions';
import { stateMachines } from '../../src/manifest/triggers.ts';
import type { RunEngine } from '../../src/workflows/run-engine.ts';

// The workflow run state machine (statemachines/workflow-run.asl.json) executed in the test's process
// by aws-local-stepfunctions: the real states, Choices, Maps, Retry and Catch, with each Task state
// answered by a local function. Retry pauses and Waits take 0 ms; their counts are those of the file.

export type TaskHandler = (input: any) => Promise<any>;

const root = resolve(import.meta.dirname, '../..');
const runMachine = stateMachines.find((machine) => machine.name === 'workflowRun')!;
const taskStates = ['PlanRun', 'RunStep', 'RecordDelayCompleted', 'RecordDocumentInsightsOutput', 'RecordNestedRunsOutcome', 'RecordStepFailure', 'RecordRunOutcome', 'RecordRunFailure'];

export async function runWorkflowMachine(input: { workspaceId: string; runId: string }, handlers: Record<string, TaskHandler>): Promise<unknown> {
  const text = await readFile(resolve(root, runMachine.definitionFile), 'utf8');
  const filled = text.replace(/\$\{(\w+)\}/g, (_whole, name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`);
  const machine = new StateMachine(JSON.parse(filled));
  const noPause = Object.fromEntries(taskStates.map((name) => [name, 0]));
  const execution = machine.run(input, {
    overrides: { taskResourceLocalHandlers: handlers, retryIntervalOverrides: noPause, waitTimeOverrides: { WaitForDelay: 0 } },
    context: { Execution: { Id: `arn:aws:states:us-east-1:123456789012:execution:workflow-run:${input.runId}` } } as never,
  });
  return execution.result;
}

/** Each Task state answered by the engine's task, as functions/workflows/ does on the stack. */
export function engineTasks(engine: RunEngine): Record<string, TaskHandler> {
  const recordStepOutcome: TaskHandler = (input) => engine.recordStepOutcome(input).then(() => ({}));
  const recordRunOutcome: TaskHandler = (input) => engine.recordRunOutcome(input).then(() => ({}));
  return {
    PlanRun: (input) => engine.plan(input),
    RunStep: (input) => engine.runStep(input).then(() => ({})),
    RecordDelayCompleted: recordStepOutcome,
    RecordDocumentInsightsOutput: recordStepOutcome,
    RecordNestedRunsOutcome: recordStepOutcome,
    RecordStepFailure: recordStepOutcome,
    RecordRunOutcome: recordRunOutcome,
    RecordRunFailure: recordRunOutcome,
  };
}
