import { describe, expect, it } from 'vitest';
import { outcomeOfCaughtFailure } from '../../../src/workflows/run-engine.ts';
import { workflowRunEventOf } from '../../../src/workflows/run-events.ts';
import { computedDurationMsOf, runErrorOf, runViewOf, stepsCompletedOf, type RunRecord, type StepRecord } from '../../../src/workflows/workflow-run.ts';

const at = (seconds: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, seconds)).toISOString();

function step(overrides: Partial<StepRecord>): StepRecord {
  return { runId: 'run_x', stepId: 's', index: 0, name: 's', type: 'transform', status: 'COMPLETED', ...overrides };
}

const processing: RunRecord = {
  id: 'run_01JZ0000000000000000000000',
  workspaceId: 'ws_a',
  workflow: { id: 'wf_a', name: 'A', version: 3 },
  status: 'PROCESSING',
  createdAt: at(0),
  updatedAt: at(1),
  startedAt: at(0),
  stepsCompleted: 1,
  stepsTotal: 2,
};

describe('computedDurationMsOf', () => {
  it('counts overlapping parallel steps once and the gap between steps not at all', () => {
    const steps = [
      step({ startedAt: at(0), completedAt: at(4) }),
      step({ startedAt: at(1), completedAt: at(3) }),
      step({ startedAt: at(10), completedAt: at(12) }),
    ];

    expect(computedDurationMsOf(steps)).toBe(6_000);
  });

  it('leaves out delay steps and steps that never ran', () => {
    const steps = [
      step({ startedAt: at(0), completedAt: at(1) }),
      step({ type: 'delay', startedAt: at(1), completedAt: at(100) }),
      step({ status: 'SKIPPED', completedAt: at(100) }),
      step({ status: 'QUEUED' }),
    ];

    expect(computedDurationMsOf(steps)).toBe(1_000);
  });
});

describe('progress and errors', () => {
  it('counts completed and skipped steps', () => {
    expect(stepsCompletedOf([step({}), step({ status: 'SKIPPED' }), step({ status: 'FAILED' }), step({ status: 'PROCESSING' })])).toBe(2);
  });

  it('names the first failed step in definition order, and its code', () => {
    const error = runErrorOf([
      step({ stepId: 'late', index: 2, status: 'FAILED', message: 'late failure' }),
      step({ stepId: 'early', index: 1, status: 'FAILED', failureCode: 'WORKFLOW_INPUT_INVALID', message: 'steps[1].with.x: bad' }),
    ]);

    expect(error).toEqual({ code: 'WORKFLOW_INPUT_INVALID', message: 'Step "early" (transform) failed: steps[1].with.x: bad' });
    expect(runErrorOf([step({})])).toBeUndefined();
  });
});

describe('runViewOf', () => {
  it('omits completedAt, durationMs and error while processing', () => {
    const view = runViewOf({ ...processing, error: { code: 'WORKFLOW_STEP_FAILED', message: 'stale' }, durationMs: 5 });

    expect(view).toEqual({
      id: processing.id,
      status: 'PROCESSING',
      createdAt: at(0),
      updatedAt: at(1),
      startedAt: at(0),
      workflow: { id: 'wf_a', name: 'A' },
      progress: { stepsCompleted: 1, stepsTotal: 2 },
    });
  });

  it('shows error only for FAILED', () => {
    const closed = runViewOf({ ...processing, status: 'CLOSED', completedAt: at(5), durationMs: 5_000, error: { code: 'WORKFLOW_STEP_FAILED', message: 'x' } });

    expect(closed).toMatchObject({ status: 'CLOSED', completedAt: at(5), durationMs: 5_000 });
    expect(closed).not.toHaveProperty('error');
  });
});

describe('workflowRunEventOf', () => {
  const ended = { ...processing, status: 'COMPLETED' as const, completedAt: at(5), durationMs: 5_000, computedDurationMs: 1_000 };

  it('gives a completed run error null and the same id every time', () => {
    const event = workflowRunEventOf({ ...runViewOf(ended, []), completedAt: at(5) }, 'wf_a');

    expect(event).toMatchObject({ eventType: 'workflow.run.completed', occurredAt: at(5), data: { runId: ended.id, workflowId: 'wf_a', error: null, steps: [] } });
    expect(event.data).not.toHaveProperty('id');
    expect(workflowRunEventOf({ ...runViewOf(ended, []), completedAt: at(5) }, 'wf_a').eventId).toBe(event.eventId);
  });

  it('gives a failed run its error and a closed run none, both as workflow.run.failed', () => {
    const error = { code: 'WORKFLOW_STEP_FAILED' as const, message: 'x' };
    const failed = workflowRunEventOf({ ...runViewOf({ ...ended, status: 'FAILED', error }), completedAt: at(5) }, 'wf_a');
    const closed = workflowRunEventOf({ ...runViewOf({ ...ended, status: 'CLOSED' }), completedAt: at(5) }, 'wf_a');

    expect([failed.eventType, failed.data.error]).toEqual(['workflow.run.failed', error]);
    expect(closed.eventType).toBe('workflow.run.failed');
    expect(closed.data).not.toHaveProperty('error');
  });
});

describe('outcomeOfCaughtFailure', () => {
  it('reads a StepFailedError sent with SendTaskFailure: its message and output', () => {
    const outcome = outcomeOfCaughtFailure({ Error: 'StepFailedError', Cause: JSON.stringify({ message: 'extraction failed', output: { extractionId: 'ext_1' } }) });

    expect(outcome).toEqual({ status: 'FAILED', failureCode: 'WORKFLOW_STEP_FAILED', message: 'extraction failed', output: { extractionId: 'ext_1' } });
  });

  it('reads a Lambda error\'s message, and an expression failure as WORKFLOW_INPUT_INVALID', () => {
    const outcome = outcomeOfCaughtFailure({ Error: 'ExpressionEvaluationError', Cause: JSON.stringify({ errorType: 'ExpressionEvaluationError', errorMessage: 'steps[0].with.url: bad' }) });

    expect(outcome).toEqual({ status: 'FAILED', failureCode: 'WORKFLOW_INPUT_INVALID', message: 'steps[0].with.url: bad' });
    expect(outcomeOfCaughtFailure({ Error: 'States.Timeout' })).toMatchObject({ message: 'the step timed out.' });
  });
});
