// Which steps of a run can go next (DESIGN.md, Workflows): the DAG of `needs`, `if` conditions and skip
// propagation. Pure: the caller supplies the step states and how to evaluate a condition.

import type { StepStatus } from './expressions.ts';
import type { WorkflowStep } from './workflow-definition.ts';

export interface PlannedStepState {
  status: StepStatus;
}

export type StepDecision =
  | { stepId: string; action: 'skip'; message: string }
  | { stepId: string; action: 'run' };

export interface RunPlan {
  /** Skips decided now, in the order they were found (a skip may make a dependant skippable too). */
  skipped: Extract<StepDecision, { action: 'skip' }>[];
  /** Steps whose needs are all settled and whose `if` holds: they may start now. */
  ready: string[];
  /** Steps already PROCESSING: started by an earlier plan, handed out again so a lost batch resumes. */
  inFlight: string[];
  /** Steps whose `if` could not be evaluated: they fail (the run with WORKFLOW_INPUT_INVALID). */
  conditionFailures: { stepId: string; error: unknown }[];
  /** A step failed: nothing new starts and the run ends FAILED once nothing is in flight. */
  failed: boolean;
  /** Every step is COMPLETED, SKIPPED or FAILED. */
  settled: boolean;
}

/**
 * Decides the next batch. A QUEUED step is ready when each of its needs is COMPLETED or SKIPPED; if
 * all its needs were skipped it is skipped too (a step without needs never is, by this rule); a false
 * `if` skips it. Skips propagate within one call: the states are updated as decisions are made.
 * `condition` evaluates a step's `if` with the outputs known so far; when it throws (an expression
 * that fails on the run's data) the step is listed in `conditionFailures` and nothing more starts.
 */
export async function planRun(
  steps: readonly WorkflowStep[],
  states: ReadonlyMap<string, PlannedStepState>,
  condition: (step: WorkflowStep) => Promise<boolean>,
): Promise<RunPlan> {
  const status = new Map([...states].map(([stepId, state]) => [stepId, state.status]));
  const failed = [...status.values()].some((value) => value === 'FAILED');
  const plan: RunPlan = { skipped: [], ready: [], conditionFailures: [], inFlight: steps.filter((step) => status.get(step.id) === 'PROCESSING').map((step) => step.id), failed, settled: false };
  if (!failed) {
    let changed = true;
    while (changed && plan.conditionFailures.length === 0) {
      changed = false;
      for (const step of steps) {
        if (status.get(step.id) !== 'QUEUED' || plan.ready.includes(step.id)) continue;
        const needs = step.needs.map((need) => status.get(need));
        if (!needs.every((need) => need === 'COMPLETED' || need === 'SKIPPED')) continue;
        if (step.needs.length > 0 && needs.every((need) => need === 'SKIPPED')) {
          plan.skipped.push({ stepId: step.id, action: 'skip', message: 'Skipped: every step it needs was skipped.' });
          status.set(step.id, 'SKIPPED');
          changed = true;
          continue;
        }
        let holds = true;
        try {
          holds = step.if === undefined || (await condition(step));
        } catch (error) {
          plan.conditionFailures.push({ stepId: step.id, error });
          status.set(step.id, 'FAILED');
          plan.failed = true;
          break;
        }
        if (!holds) {
          plan.skipped.push({ stepId: step.id, action: 'skip', message: `Skipped: its condition (${step.if}) was false.` });
          status.set(step.id, 'SKIPPED');
          changed = true;
          continue;
        }
        plan.ready.push(step.id);
      }
    }
  }
  plan.settled = steps.every((step) => {
    const value = status.get(step.id);
    return value === 'COMPLETED' || value === 'SKIPPED' || value === 'FAILED';
  });
  return plan;
}
