// A workflow run and its steps as the run store keeps them, and as the API shows them (spec, Workflow
// run). Pure: no storage, no AWS.

import type { StepStatus } from './expressions.ts';

export const runStatuses = ['PROCESSING', 'COMPLETED', 'FAILED', 'CLOSED'] as const;
export type RunStatus = (typeof runStatuses)[number];

export const stepStatuses = ['QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED', 'SKIPPED'] as const;

export const runErrorCodes = ['WORKFLOW_STEP_FAILED', 'WORKFLOW_INPUT_INVALID', 'WORKFLOW_TIMED_OUT', 'WORKFLOW_RUN_FAILED'] as const;
export type RunErrorCode = (typeof runErrorCodes)[number];

export interface RunError {
  code: RunErrorCode;
  message: string;
}

export function isTerminalRunStatus(status: RunStatus): boolean {
  return status !== 'PROCESSING';
}

export function isTerminalStepStatus(status: StepStatus): boolean {
  return status === 'COMPLETED' || status === 'FAILED' || status === 'SKIPPED';
}

/** Where a nested run comes from: the parent's for_each step and the item's position. */
export interface ParentStep {
  runId: string;
  stepId: string;
  index: number;
}

export interface RunRecord {
  id: string;
  workspaceId: string;
  workflow: { id: string; name: string; version: number };
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
  startedAt?: string;
  completedAt?: string;
  error?: RunError;
  stepsCompleted: number;
  stepsTotal: number;
  durationMs?: number;
  computedDurationMs?: number;
  parent?: ParentStep;
  /** How many times the run was redriven (extension): absent until the first redrive. */
  redriveCount?: number;
  /** When the latest redrive started (extension). */
  redrivenAt?: string;
  /**
   * A nested run: which execution of its parent (its parent's redriveCount, 0 for the first) last
   * started it. A parent's redrive runs a nested run that did not complete again only once.
   */
  parentGeneration?: number;
}

export interface StepRecord {
  runId: string;
  stepId: string;
  /** Position in the definition: the order steps are listed in. */
  index: number;
  name: string;
  /** A registered step type (step-types/registry.ts). */
  type: string;
  status: StepStatus;
  message?: string;
  /** Set when the step failed: the run's error code if this failure ends it. */
  failureCode?: RunErrorCode;
  startedAt?: string;
  completedAt?: string;
  /** for_each: how many nested runs the step starts (its evaluated items). */
  nestedRunCount?: number;
}

/** A run as the API returns it; `steps` only where the caller loaded them. */
export interface RunView {
  id: string;
  status: RunStatus;
  createdAt: string;
  updatedAt: string;
  startedAt?: string;
  completedAt?: string;
  error?: RunError;
  workflow: { id: string; name: string };
  progress: { stepsCompleted: number; stepsTotal: number };
  durationMs?: number;
  computedDurationMs?: number;
  parentRunId?: string;
  redriveCount?: number;
  redrivenAt?: string;
  steps?: StepView[];
}

export interface StepView {
  id: string;
  name: string;
  type: string;
  status: StepStatus;
  /** Ids of the steps this one waits for (the definition's `needs`): the edges of the run's DAG. */
  dependsOn: string[];
  startedAt?: string;
  completedAt?: string;
  durationMs?: number;
  message?: string;
  output?: unknown;
  nestedRuns?: { count: number; data: RunView[] };
}

/**
 * The spec's step object, the same in the 202 answer and in GET: `dependsOn` (the step's `needs`, the
 * DAG's edges), its own times once it has them, and for a for_each step always its nested runs (none
 * yet when the run has just started).
 */
export function stepViewOf(
  step: Pick<StepRecord, 'stepId' | 'name' | 'type' | 'status' | 'message' | 'startedAt' | 'completedAt'> & { output?: unknown },
  dependsOn: readonly string[],
  nestedRuns: readonly RunRecord[] = [],
): StepView {
  return {
    id: step.stepId,
    name: step.name,
    type: step.type,
    status: step.status,
    dependsOn: [...dependsOn],
    ...(step.startedAt !== undefined ? { startedAt: step.startedAt } : {}),
    ...(step.completedAt !== undefined ? { completedAt: step.completedAt } : {}),
    ...(step.startedAt !== undefined && step.completedAt !== undefined
      ? { durationMs: Math.max(0, Date.parse(step.completedAt) - Date.parse(step.startedAt)) }
      : {}),
    ...(step.message !== undefined ? { message: step.message } : {}),
    ...(step.output !== undefined ? { output: step.output } : {}),
    ...(step.type === 'for_each' ? { nestedRuns: { count: nestedRuns.length, data: nestedRuns.map((record) => runViewOf(record)) } } : {}),
  };
}

/** The spec's run object: completedAt and durationMs only once terminal, error only when failed. */
export function runViewOf(run: RunRecord, steps?: StepView[]): RunView {
  const terminal = isTerminalRunStatus(run.status);
  return {
    id: run.id,
    status: run.status,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    ...(run.startedAt ? { startedAt: run.startedAt } : {}),
    ...(terminal && run.completedAt ? { completedAt: run.completedAt } : {}),
    ...(run.status === 'FAILED' && run.error ? { error: run.error } : {}),
    workflow: { id: run.workflow.id, name: run.workflow.name },
    progress: { stepsCompleted: run.stepsCompleted, stepsTotal: run.stepsTotal },
    ...(terminal && run.durationMs !== undefined ? { durationMs: run.durationMs } : {}),
    ...(run.computedDurationMs !== undefined ? { computedDurationMs: run.computedDurationMs } : {}),
    ...(run.parent ? { parentRunId: run.parent.runId } : {}),
    ...(run.redriveCount !== undefined ? { redriveCount: run.redriveCount } : {}),
    ...(run.redrivenAt !== undefined ? { redrivenAt: run.redrivenAt } : {}),
    ...(steps ? { steps } : {}),
  };
}

/** `stepsCompleted`: steps completed or skipped (spec, Workflow run). */
export function stepsCompletedOf(steps: readonly Pick<StepRecord, 'status'>[]): number {
  return steps.filter((step) => step.status === 'COMPLETED' || step.status === 'SKIPPED').length;
}

/**
 * Active processing time: the length of the union of the steps' active intervals (startedAt to
 * completedAt of every step that ran, delay steps excepted). Overlapping parallel branches count once,
 * and time no step was active (a delay's Wait, the engine moving between steps) counts not at all.
 */
export function computedDurationMsOf(steps: readonly Pick<StepRecord, 'type' | 'startedAt' | 'completedAt'>[]): number {
  const intervals = steps
    .filter((step) => step.type !== 'delay' && step.startedAt && step.completedAt)
    .map((step) => [Date.parse(step.startedAt!), Date.parse(step.completedAt!)] as const)
    .filter(([start, end]) => end >= start)
    .sort((left, right) => left[0] - right[0]);
  let total = 0;
  let currentStart = Number.NaN;
  let currentEnd = Number.NaN;
  for (const [start, end] of intervals) {
    if (Number.isNaN(currentStart) || start > currentEnd) {
      if (!Number.isNaN(currentStart)) total += currentEnd - currentStart;
      currentStart = start;
      currentEnd = end;
    } else {
      currentEnd = Math.max(currentEnd, end);
    }
  }
  if (!Number.isNaN(currentStart)) total += currentEnd - currentStart;
  return total;
}

/** The run's error when a step failed: the first failed step in definition order names the cause. */
export function runErrorOf(steps: readonly StepRecord[]): RunError | undefined {
  const failed = [...steps].sort((left, right) => left.index - right.index).find((step) => step.status === 'FAILED');
  if (!failed) return undefined;
  const code = failed.failureCode === 'WORKFLOW_INPUT_INVALID' ? 'WORKFLOW_INPUT_INVALID' : 'WORKFLOW_STEP_FAILED';
  return { code, message: `Step "${failed.stepId}" (${failed.type}) failed: ${failed.message ?? 'no reason was given'}` };
}
