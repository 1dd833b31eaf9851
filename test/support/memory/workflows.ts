import type { RunExecutionInput, ExecutionStatus, RunExecutions } from '../../../src/workflows/run-executions.ts';
import type {
  ForEachItems,
  NewRun,
  RunListQuery,
  RunNeedingAttention,
  RunStore,
  StepOutcome,
  StoredRun,
  StoredStep,
  TerminalState,
} from '../../../src/workflows/run-store.ts';
import type { DocumentInsightsWait, DocumentInsightsWaits, StepExtraction } from '../../../src/workflows/steps/document-insights-waits.ts';
import type { CallbackOutcome, TaskCallbacks } from '../../../src/workflows/task-callbacks.ts';
import type { WorkflowDefinition } from '../../../src/workflows/workflow-definition.ts';
import type { RunRecord, RunStatus, StepRecord } from '../../../src/workflows/workflow-run.ts';
import type { Workflow, WorkflowStatus, WorkflowStore, WorkflowVersion } from '../../../src/workflows/workflow-store.ts';

// The workflow ports held in maps, for unit tests of the engine and the service (no emulator, no SDK
// mock). Each keeps the conditions of its DynamoDB or Step Functions counterpart (a transition that
// would move backwards is refused the same way), and hands out copies, as a store read does.

/** What a JSON store gives back: a copy, with `undefined` where JSON has nothing (as stored and read). */
const copyOf = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

interface HeldRun {
  run: StoredRun;
  steps: StoredStep[];
}

export class InMemoryRunStore implements RunStore {
  private readonly runs = new Map<string, HeldRun>();
  /** Every call by name, so that a test can count what a task cost. */
  readonly calls: string[] = [];

  constructor(private readonly now: () => Date = () => new Date()) {}

  async create(run: NewRun, steps: StepRecord[]): Promise<void> {
    this.calls.push('create');
    const key = keyOf(run.record.workspaceId, run.record.id);
    if (this.runs.has(key)) throw new Error(`Run ${run.record.id} exists.`);
    this.runs.set(key, {
      run: {
        ...copyOf(run.record),
        definition: copyOf(run.definition),
        body: copyOf(run.body ?? null),
        ...(run.parentTaskToken ? { parentTaskToken: run.parentTaskToken } : {}),
      },
      steps: steps.map((step) => copyOf(step)),
    });
  }

  async createIfAbsent(run: NewRun, steps: StepRecord[]): Promise<boolean> {
    if (this.runs.has(keyOf(run.record.workspaceId, run.record.id))) return false;
    await this.create(run, steps);
    return true;
  }

  async get(workspaceId: string, runId: string): Promise<{ run: StoredRun; steps: StoredStep[] } | undefined> {
    this.calls.push('get');
    const held = this.runs.get(keyOf(workspaceId, runId));
    return held ? copyOf({ run: held.run, steps: [...held.steps].sort((left, right) => left.index - right.index) }) : undefined;
  }

  async getRecords(workspaceId: string, runIds: readonly string[]): Promise<RunRecord[]> {
    this.calls.push('getRecords');
    return runIds.flatMap((runId) => {
      const held = this.runs.get(keyOf(workspaceId, runId));
      return held ? [recordOf(held.run)] : [];
    });
  }

  async markStarted(workspaceId: string, runId: string): Promise<void> {
    this.calls.push('markStarted');
    const held = this.runs.get(keyOf(workspaceId, runId));
    if (held?.run.status === 'PROCESSING') held.run.startedAt ??= this.now().toISOString();
  }

  async recordProgress(workspaceId: string, runId: string, stepsCompleted: number): Promise<void> {
    this.calls.push('recordProgress');
    const held = this.runs.get(keyOf(workspaceId, runId));
    if (held?.run.status !== 'PROCESSING' || held.run.stepsCompleted >= stepsCompleted) return;
    held.run.stepsCompleted = stepsCompleted;
    held.run.updatedAt = this.now().toISOString();
  }

  async markStepProcessing(workspaceId: string, step: Pick<StepRecord, 'runId' | 'index'>, forEach?: ForEachItems): Promise<boolean> {
    this.calls.push('markStepProcessing');
    const held = this.stepOf(workspaceId, step);
    if (!held || (held.status !== 'QUEUED' && held.status !== 'PROCESSING')) return false;
    held.status = 'PROCESSING';
    held.startedAt ??= this.now().toISOString();
    if (forEach) {
      held.nestedRunCount = forEach.items.length;
      held.forEach = copyOf(forEach);
    }
    return true;
  }

  async settleStep(workspaceId: string, step: Pick<StepRecord, 'runId' | 'index' | 'stepId'>, outcome: StepOutcome): Promise<boolean> {
    this.calls.push('settleStep');
    const held = this.stepOf(workspaceId, step);
    const allowed = outcome.status === 'SKIPPED' ? held?.status === 'QUEUED' : held?.status === 'QUEUED' || held?.status === 'PROCESSING';
    if (!held || !allowed) return false;
    held.status = outcome.status;
    held.completedAt = this.now().toISOString();
    if (outcome.message !== undefined) held.message = outcome.message;
    if (outcome.status === 'COMPLETED' && outcome.startedAt !== undefined) held.startedAt ??= outcome.startedAt;
    if (outcome.status === 'FAILED') held.failureCode = outcome.failureCode;
    if (outcome.status !== 'SKIPPED' && outcome.output !== undefined) held.output = copyOf(outcome.output);
    return true;
  }

  async settleRun(workspaceId: string, run: Pick<RunRecord, 'id' | 'createdAt' | 'parent'>, terminal: TerminalState): Promise<boolean> {
    this.calls.push('settleRun');
    const held = this.runs.get(keyOf(workspaceId, run.id));
    if (held?.run.status !== 'PROCESSING') return false;
    const now = this.now();
    Object.assign(held.run, {
      status: terminal.status,
      completedAt: now.toISOString(),
      updatedAt: now.toISOString(),
      durationMs: Math.max(0, now.getTime() - Date.parse(run.createdAt)),
      computedDurationMs: terminal.computedDurationMs,
      stepsCompleted: terminal.stepsCompleted,
      ...(terminal.error ? { error: terminal.error } : {}),
    });
    return true;
  }

  async markSettled(workspaceId: string, runId: string): Promise<void> {
    this.calls.push('markSettled');
    const held = this.runs.get(keyOf(workspaceId, runId));
    if (held && held.run.status !== 'PROCESSING') held.run.settledAt = this.now().toISOString();
  }

  async reopenRun(
    workspaceId: string,
    run: Pick<RunRecord, 'id' | 'parent' | 'redriveCount'>,
    reopening: { from: readonly RunStatus[]; stepsCompleted: number; parentGeneration?: number },
  ): Promise<{ redriveCount: number; redrivenAt: string } | undefined> {
    this.calls.push('reopenRun');
    const held = this.runs.get(keyOf(workspaceId, run.id));
    if (!held || !reopening.from.includes(held.run.status) || held.run.redriveCount !== run.redriveCount) return undefined;
    const redrivenAt = this.now().toISOString();
    const redriveCount = (run.redriveCount ?? 0) + 1;
    const { completedAt: _completedAt, error: _error, durationMs: _durationMs, computedDurationMs: _computed, settledAt: _settledAt, ...kept } = held.run;
    held.run = {
      ...kept,
      status: 'PROCESSING',
      updatedAt: redrivenAt,
      redrivenAt,
      redriveCount,
      stepsCompleted: reopening.stepsCompleted,
      ...(reopening.parentGeneration !== undefined ? { parentGeneration: reopening.parentGeneration } : {}),
    };
    return { redriveCount, redrivenAt };
  }

  async requeueStep(workspaceId: string, step: Pick<StoredStep, 'runId' | 'index' | 'type' | 'nestedRunCount'>): Promise<boolean> {
    this.calls.push('requeueStep');
    const held = this.stepOf(workspaceId, step);
    if (!held || !['FAILED', 'SKIPPED', 'PROCESSING'].includes(held.status)) return false;
    const keepsNestedRuns = step.type === 'for_each' && step.nestedRunCount !== undefined;
    held.status = 'QUEUED';
    delete held.message;
    delete held.failureCode;
    delete held.completedAt;
    delete held.output;
    if (!keepsNestedRuns) delete held.startedAt;
    return true;
  }

  async replaceParentTaskToken(workspaceId: string, runId: string, taskToken: string): Promise<void> {
    const held = this.runs.get(keyOf(workspaceId, runId));
    if (held) held.run.parentTaskToken = taskToken;
  }

  async *needingAttention(): AsyncGenerator<RunNeedingAttention> {
    for (const { run } of [...this.runs.values()]) {
      if (run.settledAt) continue;
      yield { workspaceId: run.workspaceId, runId: run.id, status: run.status, updatedAt: run.updatedAt, redriveCount: run.redriveCount ?? 0 };
    }
  }

  async list(workspaceId: string, query: RunListQuery): Promise<{ records: RunRecord[]; totalItems: number }> {
    const sortKey = (record: RunRecord) => `${query.sortBy === 'completedAt' ? (record.completedAt ?? '~') : record[query.sortBy]}#${record.id}`;
    const matching = [...this.runs.values()]
      .map(({ run }) => recordOf(run))
      .filter((record) => record.workspaceId === workspaceId && !record.parent)
      .filter((record) => (!query.status || record.status === query.status) && (!query.workflowId || record.workflow.id === query.workflowId))
      .filter((record) => (!query.from || record.createdAt >= query.from) && (!query.to || record.createdAt <= query.to))
      .sort((left, right) => sortKey(left).localeCompare(sortKey(right)) * (query.sort === 'asc' ? 1 : -1));
    return { records: matching.slice(query.page * query.size, (query.page + 1) * query.size), totalItems: matching.length };
  }

  private stepOf(workspaceId: string, step: Pick<StepRecord, 'runId' | 'index'>): StoredStep | undefined {
    return this.runs.get(keyOf(workspaceId, step.runId))?.steps.find((candidate) => candidate.index === step.index);
  }
}

export class InMemoryWorkflowStore implements WorkflowStore {
  private readonly workflows = new Map<string, Workflow>();
  private readonly versions = new Map<string, WorkflowVersion[]>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  async publish(workspaceId: string, workflowId: string, definition: WorkflowDefinition, source: string): Promise<WorkflowVersion> {
    const key = keyOf(workspaceId, workflowId);
    const versions = this.versions.get(key) ?? [];
    const publishedAt = this.now().toISOString();
    const stored: WorkflowVersion = { workflowId, version: versions.length + 1, definition: copyOf(definition), source, publishedAt };
    this.versions.set(key, [...versions, stored]);
    const existing = this.workflows.get(key);
    this.workflows.set(key, {
      id: workflowId,
      workspaceId,
      name: definition.name,
      ...(definition.description !== undefined ? { description: definition.description } : {}),
      latestVersion: stored.version,
      status: existing?.status ?? 'enabled',
      createdAt: existing?.createdAt ?? publishedAt,
      updatedAt: publishedAt,
    });
    return copyOf(stored);
  }

  async get(workspaceId: string, workflowId: string): Promise<Workflow | undefined> {
    return copyOf(this.workflows.get(keyOf(workspaceId, workflowId)));
  }

  async latestVersion(workspaceId: string, workflowId: string): Promise<WorkflowVersion | undefined> {
    return copyOf(this.versions.get(keyOf(workspaceId, workflowId))?.at(-1));
  }

  async list(workspaceId: string): Promise<Workflow[]> {
    return [...this.workflows.values()].filter((workflow) => workflow.workspaceId === workspaceId).sort((left, right) => left.id.localeCompare(right.id)).map(copyOf);
  }

  async setStatus(workspaceId: string, workflowId: string, status: WorkflowStatus): Promise<Workflow | undefined> {
    const workflow = this.workflows.get(keyOf(workspaceId, workflowId));
    if (!workflow) return undefined;
    Object.assign(workflow, { status, updatedAt: this.now().toISOString() });
    return copyOf(workflow);
  }
}

/**
 * Executions as Step Functions keeps them: one per run and redrive, started once per name, and what
 * each waiting token was answered with. A test plays the state machine by calling the engine's tasks.
 */
export class InMemoryRunExecutions implements RunExecutions {
  readonly started: { input: RunExecutionInput; redriveCount: number }[] = [];
  readonly stopped: { runId: string; cause: string; redriveCount: number }[] = [];
  readonly answers: { taskToken: string; outcome: 'success' | 'failure'; output?: unknown; error?: string; cause?: string }[] = [];
  private readonly statuses = new Map<string, ExecutionStatus>();

  async start(input: RunExecutionInput, redriveCount = 0): Promise<void> {
    const name = `${input.runId}#${redriveCount}`;
    if (this.statuses.has(name)) return;
    this.statuses.set(name, 'RUNNING');
    this.started.push({ input, redriveCount });
  }

  async stop(runId: string, cause: string, redriveCount = 0): Promise<void> {
    const name = `${runId}#${redriveCount}`;
    if (this.statuses.get(name) === 'RUNNING') this.statuses.set(name, 'ABORTED');
    this.stopped.push({ runId, cause, redriveCount });
  }

  async status(runId: string, redriveCount = 0): Promise<ExecutionStatus | undefined> {
    return this.statuses.get(`${runId}#${redriveCount}`);
  }

  /** What the state machine would do when it reaches its end (or dies): for the sweeper's tests. */
  endExecution(runId: string, status: ExecutionStatus, redriveCount = 0): void {
    this.statuses.set(`${runId}#${redriveCount}`, status);
  }

  async resume(taskToken: string, output: unknown): Promise<void> {
    this.answers.push({ taskToken, outcome: 'success', output: copyOf(output) });
  }

  async fail(taskToken: string, error: string, cause: string): Promise<void> {
    this.answers.push({ taskToken, outcome: 'failure', error, cause });
  }
}

/** Tokens answered once; `closed` ones answer as Step Functions does for a token nobody waits on. */
export class InMemoryTaskCallbacks implements TaskCallbacks {
  readonly answers: { taskToken: string; outcome: 'success' | 'failure'; output?: unknown; error?: string; cause?: string }[] = [];
  readonly closed = new Set<string>();

  async succeed(taskToken: string, output: unknown): Promise<CallbackOutcome> {
    if (this.closed.has(taskToken)) return 'gone';
    this.closed.add(taskToken);
    this.answers.push({ taskToken, outcome: 'success', output: copyOf(output) });
    return 'answered';
  }

  async fail(taskToken: string, error: string, cause: string): Promise<CallbackOutcome> {
    if (this.closed.has(taskToken)) return 'gone';
    this.closed.add(taskToken);
    this.answers.push({ taskToken, outcome: 'failure', error, cause });
    return 'answered';
  }
}

export class InMemoryDocumentInsightsWaits implements DocumentInsightsWaits {
  private readonly waits = new Map<string, DocumentInsightsWait>();
  private readonly stepExtractions = new Map<string, string>();

  async remember(wait: DocumentInsightsWait): Promise<void> {
    this.waits.set(keyOf(wait.workspaceId, wait.extractionId), copyOf(wait));
  }

  async get(workspaceId: string, extractionId: string): Promise<DocumentInsightsWait | undefined> {
    return copyOf(this.waits.get(keyOf(workspaceId, extractionId)));
  }

  async rememberStepExtraction(started: StepExtraction): Promise<void> {
    this.stepExtractions.set(keyOf(started.workspaceId, started.runId, started.stepId), started.extractionId);
  }

  async extractionOfStep(workspaceId: string, runId: string, stepId: string): Promise<string | undefined> {
    return this.stepExtractions.get(keyOf(workspaceId, runId, stepId));
  }

  async forget(workspaceId: string, extractionId: string): Promise<void> {
    this.waits.delete(keyOf(workspaceId, extractionId));
  }
}

function keyOf(...parts: string[]): string {
  return parts.join('\u0000');
}

function recordOf(run: StoredRun): RunRecord {
  const { definition: _definition, body: _body, parentTaskToken: _token, settledAt: _settledAt, ...record } = run;
  return copyOf(record);
}

