import { describe, expect, it } from 'vitest';
import { TransientProcessingError } from '../../../src/platform/task-errors.ts';
import { runWorkflowMachine, type TaskHandler } from '../../support/workflow-run-machine.ts';

// The run machine's Retry and Catch, executed: aws-local-stepfunctions runs the real ASL with its
// Task states replaced by local functions, so what is measured is how often each task is attempted
// and which recording task the failure reaches. Retry pauses are overridden to 0 ms; the counts and
// the error names are those of the file.

const runMachineWith = (handlers: Record<string, TaskHandler>) => runWorkflowMachine({ workspaceId: 'ws_a', runId: 'run_a' }, handlers);

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
    const plans = [{ outcome: 'dispatch', readySteps: [{ stepId: 'lookup', kind: 'web_function', state: 'RunStep' }] }, { outcome: 'finished' }];
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
    const plans = [{ outcome: 'dispatch', readySteps: [{ stepId: 'lookup', kind: 'web_function', state: 'RunStep' }] }, { outcome: 'finished' }];
    const runStep = counting(() => Promise.reject(Object.assign(new Error('The expression failed.'), { name: 'StepFailedError' })));
    const recordStepFailure = counting(recorded);

    await runMachineWith({ PlanRun: async () => plans.shift(), RunStep: runStep, RecordStepFailure: recordStepFailure, RecordRunOutcome: recorded });

    expect(runStep.calls).toHaveLength(1);
    expect(recordStepFailure.calls[0].failure).toMatchObject({ Error: 'StepFailedError' });
  });
});
