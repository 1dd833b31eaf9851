// Where runs and their steps are kept: the port the engine, the service and the views use. Every
// transition is idempotent and never moves backwards, whichever implementation keeps them
// (aws/dynamodb-run-store.ts on the stack, test/support/memory/workflows.ts in unit tests).

import type { WorkflowDefinition } from './workflow-definition.ts';
import type { RunError, RunErrorCode, RunRecord, RunStatus, StepRecord } from './workflow-run.ts';

/** A run as stored: the record and what the engine needs to continue it. */
export interface StoredRun extends RunRecord {
  /** Undefined when the stored snapshot cannot be read: the run can still be settled and shown. */
  definition: WorkflowDefinition | undefined;
  body: unknown;
  /** for_each children: the token that resumes the parent's Map iteration when this run ends. */
  parentTaskToken?: string;
  /** The terminal event is recorded and the parent told: nothing left for the sweeper. */
  settledAt?: string;
}

export interface StoredStep extends StepRecord {
  output?: unknown;
  /** for_each: the evaluated items, the workflow the children run and how many run at once. */
  forEach?: ForEachItems;
}

export interface ForEachItems {
  items: unknown[];
  workflowId: string;
  maxConcurrency: number;
}

export interface NewRun {
  record: RunRecord;
  definition: WorkflowDefinition;
  body: unknown;
  parentTaskToken?: string;
}

export interface RunListQuery {
  page: number;
  size: number;
  status?: RunStatus;
  workflowId?: string;
  /** Normalised ISO 8601, inclusive bounds on createdAt. */
  from?: string;
  to?: string;
  sortBy: 'createdAt' | 'updatedAt' | 'completedAt';
  sort: 'asc' | 'desc';
}

export type StepOutcome =
  /** `startedAt`: a step the plan ran itself, which never was PROCESSING; kept if the step has one. */
  | { status: 'COMPLETED'; output?: unknown; message?: string; startedAt?: string }
  | { status: 'FAILED'; message: string; failureCode: RunErrorCode; output?: unknown }
  | { status: 'SKIPPED'; message: string };

export interface TerminalState {
  status: Exclude<RunStatus, 'PROCESSING'>;
  error?: RunError;
  stepsCompleted: number;
  computedDurationMs: number;
}

/** A run the sweeper looks at: in flight, or ended with its event or parent notification pending. */
export interface RunNeedingAttention {
  workspaceId: string;
  runId: string;
  status: RunStatus;
  updatedAt: string;
  redriveCount: number;
}

/** Runs and their steps; idempotent transitions that never move backwards. */
export interface RunStore {
  /** Steps first, then the run: a run that exists always has its steps. Throws if the run exists. */
  create(run: NewRun, steps: StepRecord[]): Promise<void>;
  /** Creates a nested run unless it exists (a retried start); returns whether this call created it. */
  createIfAbsent(run: NewRun, steps: StepRecord[]): Promise<boolean>;
  /** The run with its steps in definition order, or undefined when the workspace has no such run. */
  get(workspaceId: string, runId: string): Promise<{ run: StoredRun; steps: StoredStep[] } | undefined>;
  /** Run records by id, in the order asked, without steps or large values; missing ones left out. */
  getRecords(workspaceId: string, runIds: readonly string[]): Promise<RunRecord[]>;
  /** First start of the execution; later calls keep the first time. Only while PROCESSING. */
  markStarted(workspaceId: string, runId: string): Promise<void>;
  /** Progress only moves forward, and only while the run is in flight. */
  recordProgress(workspaceId: string, runId: string, stepsCompleted: number): Promise<void>;
  /** QUEUED → PROCESSING (again PROCESSING on a retried plan keeps the first startedAt). */
  markStepProcessing(workspaceId: string, step: Pick<StepRecord, 'runId' | 'index'>, forEach?: ForEachItems): Promise<boolean>;
  /**
   * A step's terminal state, written once: QUEUED or PROCESSING to COMPLETED or FAILED, QUEUED to
   * SKIPPED. Returns false when the step had already ended (a retried task): nothing changes then.
   */
  settleStep(workspaceId: string, step: Pick<StepRecord, 'runId' | 'index' | 'stepId'>, outcome: StepOutcome): Promise<boolean>;
  /**
   * The run's terminal state, written once (only from PROCESSING). Returns false when the run had
   * already ended: the first terminal state stands (a close racing the last step, a retried task).
   */
  settleRun(workspaceId: string, run: Pick<RunRecord, 'id' | 'createdAt' | 'parent'>, terminal: TerminalState): Promise<boolean>;
  /** Event recorded and parent told: the run no longer needs the sweeper. Only once terminal. */
  markSettled(workspaceId: string, runId: string): Promise<void>;
  /**
   * Redrive: an ended run back in flight, as the run's `redriveCount`-th execution. Written once per
   * redrive: only from one of `from` and with the count it read, so of two redrives racing one wins
   * (the other gets undefined). The terminal fields go and the run needs the sweeper's eye again.
   */
  reopenRun(
    workspaceId: string,
    run: Pick<RunRecord, 'id' | 'parent' | 'redriveCount'>,
    reopening: { from: readonly RunStatus[]; stepsCompleted: number; parentGeneration?: number },
  ): Promise<{ redriveCount: number; redrivenAt: string } | undefined>;
  /**
   * Redrive: a FAILED, SKIPPED or PROCESSING step is QUEUED again, without the outcome of its last
   * attempt. A for_each step that evaluated its items keeps its start and its items: its nested runs'
   * ids derive from them, so the nested runs that completed are found again instead of started again.
   */
  requeueStep(workspaceId: string, step: Pick<StoredStep, 'runId' | 'index' | 'type' | 'nestedRunCount'>): Promise<boolean>;
  /** A retried nested-run start waits with a new token: the child must resume that one. */
  replaceParentTaskToken(workspaceId: string, runId: string, taskToken: string): Promise<void>;
  /** Runs the sweeper looks at, across workspaces. */
  needingAttention(): AsyncIterable<RunNeedingAttention>;
  /** A page of top-level runs with the exact total of the filtered range. */
  list(workspaceId: string, query: RunListQuery): Promise<{ records: RunRecord[]; totalItems: number }>;
}
