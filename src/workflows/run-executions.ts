// Orchestration of runs, as the engine and the service see it (aws/step-functions-run-executions.ts on
// the stack, test/support/memory/workflows.ts in unit tests).

/** The input of the workflow run state machine (statemachines/workflow-run.asl.json). */
export interface RunExecutionInput {
  workspaceId: string;
  runId: string;
}

export const executionStatuses = ['RUNNING', 'SUCCEEDED', 'FAILED', 'TIMED_OUT', 'ABORTED', 'PENDING_REDRIVE'] as const;
export type ExecutionStatus = (typeof executionStatuses)[number];

/**
 * The name of a run's execution: the run id for its first, `<runId>-r<n>` for its n-th redrive (an
 * execution name cannot be used again, and naming it keeps a retried start of the same redrive one).
 */
export function executionNameOf(runId: string, redriveCount = 0): string {
  return redriveCount === 0 ? runId : `${runId}-r${redriveCount}`;
}

/**
 * Orchestration of runs: one execution per run and redrive (`redriveCount`, 0 for the first), named
 * after them; task tokens of waiting steps.
 */
export interface RunExecutions {
  start(input: RunExecutionInput, redriveCount?: number): Promise<void>;
  stop(runId: string, cause: string, redriveCount?: number): Promise<void>;
  /** Undefined when no such execution exists (never started, or forgotten by a restarted local stack). */
  status(runId: string, redriveCount?: number): Promise<ExecutionStatus | undefined>;
  /** Resumes a waiting task; a token that is no longer waited on (stopped parent) is ignored. */
  resume(taskToken: string, output: unknown): Promise<void>;
  fail(taskToken: string, error: string, cause: string): Promise<void>;
}
