import { describe, expect, it } from 'vitest';
import { ExpressionEvaluationError, type StepStatus } from '../../../src/workflows/expressions.ts';
import { planRun } from '../../../src/workflows/run-planning.ts';
import { validateWorkflowDefinition, type WorkflowStep } from '../../../src/workflows/workflow-definition.ts';

function stepsOf(steps: unknown[]): WorkflowStep[] {
  const result = validateWorkflowDefinition({ name: 'Plan', steps });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.definition.steps;
}

const transform = (id: string, extra: Record<string, unknown> = {}) => ({ id, type: 'transform', with: { id }, ...extra });
const states = (entries: Record<string, StepStatus>) => new Map(Object.entries(entries).map(([id, status]) => [id, { status }]));
const always = async () => true;

describe('planRun', () => {
  it('starts every step without needs at once, and a join only when all its needs are done', async () => {
    const steps = stepsOf([transform('a'), transform('b'), transform('join', { needs: ['a', 'b'] })]);

    const first = await planRun(steps, states({ a: 'QUEUED', b: 'QUEUED', join: 'QUEUED' }), always);
    const halfway = await planRun(steps, states({ a: 'COMPLETED', b: 'PROCESSING', join: 'QUEUED' }), always);
    const joined = await planRun(steps, states({ a: 'COMPLETED', b: 'COMPLETED', join: 'QUEUED' }), always);

    expect(first).toMatchObject({ ready: ['a', 'b'], inFlight: [], skipped: [], failed: false, settled: false });
    expect(halfway).toMatchObject({ ready: [], inFlight: ['b'] });
    expect(joined.ready).toEqual(['join']);
  });

  it('skips a step whose if is false, then a step whose needs were all skipped, in one plan', async () => {
    const steps = stepsOf([
      transform('a'),
      transform('optional', { if: 'body.flag' }),
      transform('afterOptional', { needs: ['optional'] }),
      transform('afterAfter', { needs: ['afterOptional'] }),
      transform('mixed', { needs: ['a', 'optional'] }),
    ]);

    const plan = await planRun(steps, states({ a: 'COMPLETED', optional: 'QUEUED', afterOptional: 'QUEUED', afterAfter: 'QUEUED', mixed: 'QUEUED' }), async (step) => step.id !== 'optional');

    expect(plan.skipped.map((skip) => skip.stepId)).toEqual(['optional', 'afterOptional', 'afterAfter']);
    expect(plan.ready).toEqual(['mixed']);
    expect(plan.skipped[1]!.message).toMatch(/every step it needs was skipped/);
  });

  it('never evaluates the if of a step whose needs are not done', async () => {
    const steps = stepsOf([transform('a'), transform('b', { needs: ['a'], if: 'steps.a.output.ok' })]);
    const evaluated: string[] = [];

    await planRun(steps, states({ a: 'PROCESSING', b: 'QUEUED' }), async (step) => {
      evaluated.push(step.id);
      return true;
    });

    expect(evaluated).toEqual([]);
  });

  it('lists an if that cannot be evaluated as a failure and starts nothing more', async () => {
    const steps = stepsOf([transform('a', { if: 'body.x' }), transform('b')]);
    const failure = new ExpressionEvaluationError('steps[0].if', 'boom');

    const plan = await planRun(steps, states({ a: 'QUEUED', b: 'QUEUED' }), async (step) => {
      if (step.id === 'a') throw failure;
      return true;
    });

    expect(plan.conditionFailures).toEqual([{ stepId: 'a', error: failure }]);
    expect(plan.failed).toBe(true);
  });

  it('starts nothing once a step failed, and is settled when every step ended', async () => {
    const steps = stepsOf([transform('a'), transform('b'), transform('c', { needs: ['a'] })]);

    const afterFailure = await planRun(steps, states({ a: 'COMPLETED', b: 'FAILED', c: 'QUEUED' }), always);
    const done = await planRun(steps, states({ a: 'COMPLETED', b: 'SKIPPED', c: 'FAILED' }), always);

    expect(afterFailure).toMatchObject({ ready: [], failed: true, settled: false });
    expect(done).toMatchObject({ ready: [], settled: true });
  });

  it('hands out steps left PROCESSING by a lost batch again', async () => {
    const steps = stepsOf([transform('a'), transform('b', { needs: ['a'] })]);

    const plan = await planRun(steps, states({ a: 'PROCESSING', b: 'QUEUED' }), always);

    expect(plan).toMatchObject({ inFlight: ['a'], ready: [] });
  });
});
