import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { StateMachine } from 'aws-local-stepfunctions';
import { describe, expect, it } from 'vitest';
import { stateMachines } from '../../../src/manifest/triggers.ts';
import { TransientProcessingError } from '../../../src/platform/task-errors.ts';

// The run machine's Retry and Catch, executed: aws-local-stepfunctions runs the real ASL with its
// Task states replaced by local functions, so what is measured is how often each task is attempted
// and which recording task the failure reaches. Retry pauses are overridden to 0 ms; the counts and
// the error names are those of the file.

const root = resolve(import.meta.dirname, '../../..');
const runMachine = stateMachines.find((machine) => machine.name === 'workflowRun')!;

type TaskHandler = (input: any) => Promise<any>;

async function runMachineWith(handlers: Record<string, TaskHandler>) {
  const text = await readFile(resolve(root, runMachine.definitionFile), 'utf8');
  const filled = text.replace(/\$\{(\w+)\}/g, (_whole, name: string) => `arn:aws:lambda:us-east-1:123456789012:function:${name}`);
  const machine = new StateMachine(JSON.parse(filled));
  const noPause = Object.fromEntries(['PlanRun', 'RunStep', 'RecordStepFailure', 'RecordRunOutcome', 'RecordRunFailure'].map((name) => [name, 0]));
  const execution = machine.run(
    { workspaceId: 'ws_a', runId: 'run_a' },
    {
      overrides: { taskResourceLocalHandlers: handlers, retryIntervalOverrides: noPause },
      context: { Execution: { Id: 'arn:aws:states:us-east-1:123456789012:execution:workflow-run:run_a' } } as never,
    },
  );
  return execution.result;
}

function counting(handler: TaskHandler): TaskHandler & { calls: any[] } {
  const calls: any[] = [];
  const counted = async (input: any) => {
    calls.push(input);
    return handler(input);
  };
  return Object.assign(counted, { calls });
}

const alwaysTransient = () => Promise.reject(new TransientProcessingError('A service call failed: ThrottlingException.'));
const recorded = () => Promise.resolve({});

describe('statemachines/workflow-run.asl.json retries', () => {
  it('attempts PlanRun six times on transient errors, then records the run as failed with that error', async () => {
    const planRun = counting(alwaysTransient);
    const recordRunFailure = counting(recorded);
    const recordRunOutcome = counting(recorded);

    await runMachineWith({ PlanRun: planRun, RecordRunFailure: recordRunFailure, RecordRunOutcome: recordRunOutcome });

    expect(planRun.calls).toHaveLength(6); // the first attempt and MaxAttempts 5
    expect(recordRunOutcome.calls).toHaveLength(0);
    expect(recordRunFailure.calls).toHaveLength(1);
    expect(recordRunFailure.calls[0].failure).toMatchObject({ Error: 'TransientProcessingError' });
  });

  it('attempts a step five times on transient errors, records the step failure, and plans again', async () => {
    const plans = [{ outcome: 'dispatch', readySteps: [{ stepId: 'lookup', kind: 'web_function' }] }, { outcome: 'finished' }];
    const planRun = counting(async () => plans.shift());
    const runStep = counting(alwaysTransient);
    const recordStepFailure = counting(recorded);
    const recordRunOutcome = counting(recorded);

    await runMachineWith({ PlanRun: planRun, RunStep: runStep, RecordStepFailure: recordStepFailure, RecordRunOutcome: recordRunOutcome });

    expect(runStep.calls).toHaveLength(5); // the first attempt and MaxAttempts 4
    expect(recordStepFailure.calls).toHaveLength(1);
    expect(recordStepFailure.calls[0]).toMatchObject({ stepId: 'lookup', failure: { Error: 'TransientProcessingError' } });
    expect(planRun.calls).toHaveLength(2);
    expect(recordRunOutcome.calls).toHaveLength(1);
  });

  it('does not retry a step error that is not transient', async () => {
    const plans = [{ outcome: 'dispatch', readySteps: [{ stepId: 'lookup', kind: 'web_function' }] }, { outcome: 'finished' }];
    const runStep = counting(() => Promise.reject(Object.assign(new Error('The expression failed.'), { name: 'StepFailedError' })));
    const recordStepFailure = counting(recorded);

    await runMachineWith({ PlanRun: async () => plans.shift(), RunStep: runStep, RecordStepFailure: recordStepFailure, RecordRunOutcome: recorded });

    expect(runStep.calls).toHaveLength(1);
    expect(recordStepFailure.calls[0].failure).toMatchObject({ Error: 'StepFailedError' });
  });
});
