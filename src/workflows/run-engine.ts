// The work of each Task of the workflow run state machine (statemachines/workflow-run.asl.json), and
// the run's lifecycle around it: creating runs, settling them once, their events and the parent of a
// nested run. Step Functions only moves data between these; every decision is made here.

import type { EventRecorder } from '../events/event-recorder.ts';
import { newIdentifier } from '../infrastructure/identifiers.ts';
import { metrics, millisecondsSince } from '../infrastructure/metrics.ts';
import { messageOfCause, type CaughtFailure } from '../platform/task-errors.ts';
import { evaluateCondition, evaluateTemplate, ExpressionEvaluationError, type ExpressionContext } from './expressions.ts';
import { nestedRunIdsOf } from './nested-runs.ts';
import { planRun } from './run-planning.ts';
import type { RunViews } from './run-views.ts';
import { workflowRunEventOf } from './run-events.ts';
import type { RunExecutions } from './run-executions.ts';
import type { RunStore, StepOutcome, StoredRun, StoredStep } from './run-store.ts';
import { StepFailedError } from './step-failures.ts';
import type { DocumentInsightsStepStart } from './steps/document-insights.ts';
import type { WebFunctionOutput } from './steps/web-function.ts';
import type { StepTypeRegistry } from './step-type.ts';
import { stepTypeRegistry } from './step-types/registry.ts';
import type { WorkflowDefinition, WorkflowStep } from './workflow-definition.ts';
import {
  computedDurationMsOf,
  isTerminalRunStatus,
  isTerminalStepStatus,
  runErrorOf,
  stepsCompletedOf,
  type ParentStep,
  type RunError,
  type RunRecord,
  type RunStatus,
  type RunView,
  type StepRecord,
} from './workflow-run.ts';
import type { WorkflowStore } from './workflow-store.ts';

/** What every Task receives. */
export interface RunTaskInput {
  workspaceId: string;
  runId: string;
}

export interface StepTaskInput extends RunTaskInput {
  stepId: string;
}

/** One ready step as the state machine's Map hands it to its branch (its Choice reads `state`). */
export interface DispatchedStep {
  stepId: string;
  /** The step's type. */
  kind: string;
  /** The state that carries the step out (its type's `state`): RouteStep's Choice goes there. */
  state: string;
  /** delay: the Wait's SecondsPath. */
  delaySeconds?: number;
  /** for_each: the inner Map's items (positions of the evaluated items) and MaxConcurrencyPath. */
  itemIndexes?: number[];
  maxConcurrency?: number;
}

export type PlanResult = { outcome: 'dispatch'; readySteps: DispatchedStep[] } | { outcome: 'finished' } | { outcome: 'settled' };

/** How the step types that reach outside are carried out (src/workflows/steps/). */
export interface StepRunners {
  callWebFunction(evaluatedWith: unknown): Promise<WebFunctionOutput>;
  startDocumentInsights(start: DocumentInsightsStepStart): Promise<{ extractionId: string }>;
}

export interface RunEngineDependencies {
  store: RunStore;
  workflows: Pick<WorkflowStore, 'get' | 'latestVersion'>;
  executions: RunExecutions;
  events: Pick<EventRecorder, 'record'>;
  /** The run as the API shows it, which is also its event's data. */
  views: Pick<RunViews, 'viewOf'>;
  steps: StepRunners;
  /** The step types runs may use: the built-in ones unless given (a test's fixture type). */
  stepTypes?: StepTypeRegistry;
  /** How long one plan may spend running inline steps before it hands the rest to the state machine. */
  inlineBudgetMs?: number;
  now?: () => Date;
}

/** Well inside PlanRun's 120 s timeout, whatever the last inline step's expressions take (1 s each at most). */
const defaultInlineBudgetMs = 10_000;

/** The error a nested run's failure resumes its parent's Map iteration with. */
export const nestedRunFailedError = 'NestedRunFailed';

export class RunEngine {
  private readonly now: () => Date;
  private readonly stepTypes: StepTypeRegistry;
  private readonly inlineBudgetMs: number;

  constructor(private readonly dependencies: RunEngineDependencies) {
    this.now = dependencies.now ?? (() => new Date());
    this.stepTypes = dependencies.stepTypes ?? stepTypeRegistry;
    this.inlineBudgetMs = dependencies.inlineBudgetMs ?? defaultInlineBudgetMs;
  }

  private get store(): RunStore {
    return this.dependencies.store;
  }

  // Creating runs.

  /** Stores a new run in PROCESSING with every step QUEUED; the caller starts its execution. */
  async createRun(
    workspaceId: string,
    workflow: { id: string; version: number; definition: WorkflowDefinition },
    body: unknown,
    nested?: { runId: string; parent: ParentStep; parentTaskToken: string; parentGeneration: number },
  ): Promise<{ record: RunRecord; steps: StepRecord[]; created: boolean }> {
    const now = this.now().toISOString();
    const record: RunRecord = {
      id: nested?.runId ?? newIdentifier('run'),
      workspaceId,
      workflow: { id: workflow.id, name: workflow.definition.name, version: workflow.version },
      status: 'PROCESSING',
      createdAt: now,
      updatedAt: now,
      stepsCompleted: 0,
      stepsTotal: workflow.definition.steps.length,
      ...(nested ? { parent: nested.parent, parentGeneration: nested.parentGeneration } : {}),
    };
    const steps: StepRecord[] = workflow.definition.steps.map((step, index) => ({
      runId: record.id,
      stepId: step.id,
      index,
      name: step.name ?? step.id,
      type: step.type,
      status: 'QUEUED',
    }));
    const newRun = { record, definition: workflow.definition, body, ...(nested ? { parentTaskToken: nested.parentTaskToken } : {}) };
    if (!nested) {
      await this.store.create(newRun, steps);
      return { record, steps, created: true };
    }
    return { record, steps, created: await this.store.createIfAbsent(newRun, steps) };
  }

  // The Tasks.

  /**
   * PlanRun: skips what the DAG and `if`s skip, fails a step whose expressions fail on the run's
   * data, runs the ready steps of an inline type (transform) itself, and hands out the next batch of
   * ready steps (marked PROCESSING). `finished` when nothing is left to run (or a step failed),
   * `settled` when the run already ended (closed).
   *
   * An inline step is pure and bounded (its expressions have their own limits), so handing it to
   * RunStep would cost a Map iteration, a task, a re-read of the run and a write for nothing but
   * the round trip: the plan settles it (startedAt and completedAt its own) and plans again, within
   * `inlineBudgetMs`, then hands out what remains. Every write is the same conditional one RunStep
   * makes, so a retried plan, a close racing it, or a concurrent task change nothing that ended.
   */
  async plan(input: RunTaskInput): Promise<PlanResult> {
    const loaded = await this.load(input);
    if (!loaded) return { outcome: 'settled' };
    const { run } = loaded;
    let steps = loaded.steps;
    if (run.status !== 'PROCESSING') return { outcome: 'settled' };
    if (!run.startedAt) await this.store.markStarted(input.workspaceId, run.id);
    const definitionSteps = definitionOf(run).steps;
    const inlineUntil = Date.now() + this.inlineBudgetMs;
    for (;;) {
      const context = contextOf(run, steps);
      const plan = await planRun(definitionSteps, new Map(steps.map((step) => [step.stepId, { status: step.status }])), (step) =>
        evaluateCondition(step.if!, context, `steps[${indexOf(run, step.id)}].if`),
      );
      for (const skip of plan.skipped) steps = await this.settleInPlan(input, steps, skip.stepId, { status: 'SKIPPED', message: skip.message });
      for (const failure of plan.conditionFailures) steps = await this.settleInPlan(input, steps, failure.stepId, failedOutcome(failure.error));
      if (plan.failed || plan.ready.length + plan.inFlight.length === 0) {
        await this.recordProgress(input, run, steps, []);
        return { outcome: 'finished' };
      }
      const inline = plan.ready.filter((stepId) => this.stepTypes.get(definitionSteps[stepNamed(steps, stepId).index]!.type).inline);
      if (inline.length === 0 || Date.now() > inlineUntil) {
        await this.recordProgress(input, run, steps, []);
        return this.dispatch(input, run, steps, [...plan.inFlight, ...plan.ready], context);
      }
      for (const stepId of inline) {
        const step = stepNamed(steps, stepId);
        const startedAt = this.now().toISOString();
        const outcome = await this.outcomeOf(definitionSteps[step.index]!, step, context);
        steps = await this.settleInPlan(input, steps, stepId, outcome.status === 'COMPLETED' ? { ...outcome, startedAt } : outcome);
      }
    }
  }

  /**
   * A step ended by the plan itself, and the plan's own view of the steps after it. When the step had
   * already ended (a close, a retried plan), the plan goes on from the steps as they are now.
   */
  private async settleInPlan(input: RunTaskInput, steps: StoredStep[], stepId: string, outcome: StepOutcome): Promise<StoredStep[]> {
    const step = stepNamed(steps, stepId);
    if (!(await this.store.settleStep(input.workspaceId, step, outcome))) return (await this.load(input))?.steps ?? steps;
    const now = this.now().toISOString();
    const settled: StoredStep = {
      ...step,
      status: outcome.status,
      completedAt: now,
      ...(outcome.status === 'COMPLETED' && outcome.startedAt ? { startedAt: step.startedAt ?? outcome.startedAt } : {}),
      ...(outcome.message !== undefined ? { message: outcome.message } : {}),
      ...(outcome.status !== 'SKIPPED' && outcome.output !== undefined ? { output: outcome.output } : {}),
    };
    return steps.map((candidate) => (candidate.stepId === stepId ? settled : candidate));
  }

  /** The next batch for the state machine: each step's state and what it needs, marked PROCESSING. */
  private async dispatch(input: RunTaskInput, run: StoredRun, steps: StoredStep[], stepIds: readonly string[], context: ExpressionContext): Promise<PlanResult> {
    const definitionSteps = definitionOf(run).steps;
    const dispatched: { step: StoredStep; dispatch: DispatchedStep; forEach?: StoredStep['forEach'] }[] = [];
    for (const stepId of stepIds) {
      const step = stepNamed(steps, stepId);
      const definitionStep = definitionSteps[step.index]!;
      try {
        dispatched.push({ step, ...(await this.prepare(input.workspaceId, step, definitionStep, context)) });
      } catch (error) {
        await this.store.settleStep(input.workspaceId, step, failedOutcome(error));
        return { outcome: 'finished' };
      }
    }
    for (const { step, forEach } of dispatched) await this.store.markStepProcessing(input.workspaceId, step, forEach);
    return { outcome: 'dispatch', readySteps: dispatched.map(({ dispatch }) => dispatch) };
  }

  /** A RunStep or inline step carried out: its output, or the failure of its expressions or its runner. */
  private async outcomeOf(definitionStep: WorkflowStep, step: StoredStep, context: ExpressionContext): Promise<StepOutcome> {
    try {
      const run = this.stepTypes.get(definitionStep.type).run;
      if (!run) throw new Error(`Step type ${definitionStep.type} does not run in RunStep.`);
      const evaluated = await evaluateTemplate(definitionStep.with, context, `steps[${step.index}].with`);
      return { status: 'COMPLETED', output: await run(evaluated, this.dependencies.steps) };
    } catch (error) {
      if (!(error instanceof ExpressionEvaluationError) && !(error instanceof StepFailedError)) throw error;
      return failedOutcome(error);
    }
  }

  /** RunStep: a step whose type runs in this Lambda (transform, web_function), start to end. Retried safely: an ended step is left as it is. */
  async runStep(input: StepTaskInput): Promise<void> {
    const loaded = await this.loadStep(input);
    const { steps, step } = loaded;
    if (isTerminalStepStatus(step.status) || loaded.run.status !== 'PROCESSING') return;
    const outcome = await this.outcomeOf(definitionOf(loaded.run).steps[step.index]!, step, contextOf(loaded.run, steps));
    if (await this.store.settleStep(input.workspaceId, step, outcome)) await this.recordProgress(input, loaded.run, steps, outcome.status === 'COMPLETED' ? [step.stepId] : []);
  }

  /**
   * StartDocumentInsights (a `.waitForTaskToken` Task): evaluates `with` and starts the extraction,
   * which resumes the execution with the token when it ends. An expression failing on the run's data
   * is thrown, and the Catch records it.
   */
  async startDocumentInsights(input: StepTaskInput & { taskToken: string }): Promise<void> {
    const { run, steps, step } = await this.loadStep(input);
    const evaluatedWith = await evaluateTemplate(definitionOf(run).steps[step.index]!.with, contextOf(run, steps), `steps[${step.index}].with`);
    await this.dependencies.steps.startDocumentInsights({
      workspaceId: input.workspaceId,
      runId: run.id,
      stepId: step.stepId,
      evaluatedWith,
      taskToken: input.taskToken,
      ...(run.redriveCount ? { redriveCount: run.redriveCount } : {}),
    });
  }

  /**
   * StartNestedRun (a `.waitForTaskToken` Task, one per for_each item): creates the item's nested run
   * and starts its execution; the nested run resumes the token when it ends. The nested run's id is
   * derived from the parent step and the position, so a retried start finds the same run. Under a
   * redrive of the parent the same ids come back: a nested run that completed resumes its iteration
   * at once (it is not run again), one that failed or was closed is redriven itself, once.
   */
  async startNestedRun(input: StepTaskInput & { index: number; taskToken: string }): Promise<void> {
    const { run, step } = await this.loadStep(input);
    if (!step.forEach) throw new Error(`Step ${step.stepId} of run ${run.id} has no for_each items.`);
    const runId = nestedRunIdsOf(step)[input.index];
    if (runId === undefined) throw new Error(`Run ${run.id} step ${step.stepId} has no item ${input.index}.`);
    const parentGeneration = run.redriveCount ?? 0;
    const version = await this.dependencies.workflows.latestVersion(input.workspaceId, step.forEach.workflowId);
    if (!version) throw new StepFailedError(`Workflow ${step.forEach.workflowId} does not exist in this workspace.`);
    const { created } = await this.createRun(input.workspaceId, { id: version.workflowId, version: version.version, definition: version.definition }, step.forEach.items[input.index], {
      runId,
      parent: { runId: run.id, stepId: step.stepId, index: input.index },
      parentTaskToken: input.taskToken,
      parentGeneration,
    });
    let redriveCount = 0;
    if (!created) {
      // A retried start, or the parent's redrive: this attempt's token is the one now waited on.
      await this.store.replaceParentTaskToken(input.workspaceId, runId, input.taskToken);
      const [existing] = await this.store.getRecords(input.workspaceId, [runId]);
      if (!existing) throw new Error(`Nested run ${runId} of run ${run.id} disappeared.`);
      redriveCount = existing.redriveCount ?? 0;
      if (isTerminalRunStatus(existing.status)) {
        const current = existing.status !== 'COMPLETED' && (existing.parentGeneration ?? 0) < parentGeneration ? await this.redriveNested(existing, parentGeneration) : existing;
        if (isTerminalRunStatus(current.status)) {
          await this.notifyParent({ ...current, parentTaskToken: input.taskToken });
          return;
        }
        redriveCount = current.redriveCount ?? 0;
      }
    }
    await this.dependencies.executions.start({ workspaceId: input.workspaceId, runId }, redriveCount);
  }

  /**
   * Redrive (extension): puts an ended run back in flight, with the steps that did not complete QUEUED
   * again and the completed ones, their outputs included, kept. Returns the new redriveCount, or
   * undefined when the run was no longer in a state of `from` (another redrive won); the caller then
   * starts the execution named after that count.
   */
  async reopenForRedrive(run: StoredRun, steps: readonly StoredStep[], options: { from: readonly RunStatus[]; parentGeneration?: number }): Promise<{ redriveCount: number } | undefined> {
    const stepsCompleted = steps.filter((step) => step.status === 'COMPLETED').length;
    const reopened = await this.store.reopenRun(run.workspaceId, run, { from: options.from, stepsCompleted, ...(options.parentGeneration !== undefined ? { parentGeneration: options.parentGeneration } : {}) });
    if (!reopened) return undefined;
    for (const step of steps) if (step.status !== 'COMPLETED') await this.store.requeueStep(run.workspaceId, step);
    return { redriveCount: reopened.redriveCount };
  }

  /**
   * A nested run that did not complete, under its parent's redrive: redriven once for that redrive.
   * Returns the record as it is now (PROCESSING when this or an earlier attempt of the start reopened it).
   */
  private async redriveNested(existing: RunRecord, parentGeneration: number): Promise<RunRecord> {
    const loaded = await this.store.get(existing.workspaceId, existing.id);
    if (loaded) await this.reopenForRedrive(loaded.run, loaded.steps, { from: ['FAILED', 'CLOSED'], parentGeneration });
    const [current] = await this.store.getRecords(existing.workspaceId, [existing.id]);
    return current ?? existing;
  }

  /**
   * RecordStepOutcome: how a step that the state machine carried out ended: a delay's Wait, a
   * document_insights callback (`output`), a for_each's nested runs (`nestedRunsFinished`), or any
   * step's caught failure (`failure`).
   */
  async recordStepOutcome(input: StepTaskInput & { output?: unknown; failure?: CaughtFailure; delayCompleted?: boolean; nestedRunsFinished?: boolean }): Promise<void> {
    const { run, steps, step } = await this.loadStep(input);
    if (isTerminalStepStatus(step.status)) return;
    let outcome: StepOutcome;
    if (input.failure) outcome = outcomeOfCaughtFailure(input.failure);
    else if (input.nestedRunsFinished) outcome = await this.nestedRunsOutcome(input.workspaceId, step);
    else outcome = { status: 'COMPLETED', ...(input.output !== undefined ? { output: input.output } : {}) };
    if (await this.store.settleStep(input.workspaceId, step, outcome)) await this.recordProgress(input, run, steps, outcome.status === 'COMPLETED' ? [step.stepId] : []);
  }

  /**
   * RecordRunOutcome: the run's terminal state from its steps (COMPLETED, or FAILED naming the first
   * failed step), or FAILED with WORKFLOW_RUN_FAILED when the state machine caught a failure of its
   * own; then its event and its parent. Retried safely: the first terminal state stands.
   */
  async recordRunOutcome(input: RunTaskInput & { failure?: CaughtFailure }): Promise<{ status: RunStatus } | undefined> {
    const loaded = await this.load(input);
    if (!loaded) return undefined;
    const { run, steps } = loaded;
    if (run.status === 'PROCESSING') {
      const stepError = runErrorOf(steps);
      const allSettled = steps.every((step) => isTerminalStepStatus(step.status));
      let error: RunError | undefined = stepError;
      if (!error && input.failure) error = { code: 'WORKFLOW_RUN_FAILED', message: `The run could not be processed: ${describeFailure(input.failure)}` };
      if (!error && !allSettled) error = { code: 'WORKFLOW_RUN_FAILED', message: 'The run ended with steps that never ran.' };
      await this.settle(run, steps, error ? { status: 'FAILED', error } : { status: 'COMPLETED' });
    }
    return { status: await this.finishSettled(input.workspaceId, run.id) };
  }

  // Lifecycle shared with the service (close, sweep).

  /**
   * Writes the terminal state once; a run that already ended keeps its own. Steps still QUEUED will
   * never run: they end SKIPPED first, saying why, so that a reader of the ended run sees no step
   * waiting. They are not progress: `stepsCompleted` counts what the run got through before it ended.
   */
  async settle(run: RunRecord, steps: readonly StepRecord[], terminal: { status: Exclude<RunStatus, 'PROCESSING'>; error?: RunError }): Promise<boolean> {
    const stepsCompleted = stepsCompletedOf(steps);
    const message = neverRanMessage(steps, terminal.status);
    for (const step of steps) if (step.status === 'QUEUED') await this.store.settleStep(run.workspaceId, step, { status: 'SKIPPED', message });
    const settled = await this.store.settleRun(run.workspaceId, run, {
      ...terminal,
      stepsCompleted,
      computedDurationMs: computedDurationMsOf(steps),
    });
    if (settled) metrics.record('RunDuration', millisecondsSince(run.startedAt ?? run.createdAt, this.now()), terminal.status);
    return settled;
  }

  /**
   * What follows a terminal state, each idempotent: the event (top-level runs), resuming the parent's
   * waiting iteration (nested runs), then leaving the attention index. Returns the run's status.
   */
  async finishSettled(workspaceId: string, runId: string): Promise<RunStatus> {
    const loaded = await this.store.get(workspaceId, runId);
    if (!loaded) throw new Error(`Run ${runId} does not exist in workspace ${workspaceId}.`);
    const { run } = loaded;
    if (run.status === 'PROCESSING' || run.settledAt) return run.status;
    if (!run.parent) {
      const view = await this.dependencies.views.viewOf(loaded.run, loaded.steps);
      await this.dependencies.events.record(workspaceId, workflowRunEventOf(view as RunView & { completedAt: string }, run.workflow.id));
    } else {
      await this.notifyParent(run);
    }
    await this.store.markSettled(workspaceId, runId);
    return run.status;
  }

  async load(input: RunTaskInput): Promise<{ run: StoredRun; steps: StoredStep[] } | undefined> {
    return this.store.get(input.workspaceId, input.runId);
  }

  /** Nested runs of a run still in flight (to close them with it). */
  async nestedRunsInFlight(run: RunRecord, steps: readonly StoredStep[]): Promise<RunRecord[]> {
    const ids = steps.flatMap((step) => nestedRunIdsOf(step));
    return (await this.store.getRecords(run.workspaceId, ids)).filter((nested) => nested.status === 'PROCESSING');
  }

  private async notifyParent(run: Pick<RunRecord, 'id' | 'status' | 'error'> & { parentTaskToken?: string }): Promise<void> {
    if (!run.parentTaskToken) return;
    if (run.status === 'COMPLETED') await this.dependencies.executions.resume(run.parentTaskToken, { runId: run.id, status: run.status });
    else await this.dependencies.executions.fail(run.parentTaskToken, nestedRunFailedError, JSON.stringify({ runId: run.id, status: run.status, error: run.error }));
  }

  private async nestedRunsOutcome(workspaceId: string, step: StoredStep): Promise<StepOutcome> {
    const runIds = nestedRunIdsOf(step);
    const records = await this.store.getRecords(workspaceId, runIds);
    const completed = records.filter((record) => record.status === 'COMPLETED').length;
    const failed = runIds.length - completed;
    const output = { count: runIds.length, completed, failed, runIds };
    if (failed === 0) return { status: 'COMPLETED', output };
    return { status: 'FAILED', failureCode: 'WORKFLOW_STEP_FAILED', message: `${failed} of ${runIds.length} nested runs did not complete.`, output };
  }

  /** What the state machine needs to carry the step out, from its type: a delay's seconds, a for_each's items. */
  private async prepare(
    workspaceId: string,
    step: StoredStep,
    definitionStep: WorkflowStep,
    context: ExpressionContext,
  ): Promise<{ dispatch: DispatchedStep; forEach?: StoredStep['forEach'] }> {
    const type = this.stepTypes.get(definitionStep.type);
    const path = `steps[${step.index}].with`;
    const { forEach, ...preparation } = type.prepare
      ? await type.prepare(definitionStep.with, {
          workspaceId,
          evaluate: (template, below) => evaluateTemplate(template, context, `${path}.${below}`),
          invalidInput: (below, problem) => new ExpressionEvaluationError(`${path}.${below}`, problem),
          workflows: this.dependencies.workflows,
          ...(step.forEach ? { evaluatedForEach: step.forEach } : {}),
        })
      : {};
    return { dispatch: { stepId: step.stepId, kind: type.type, state: type.state, ...preparation }, ...(forEach ? { forEach } : {}) };
  }

  private async loadStep(input: StepTaskInput): Promise<{ run: StoredRun; steps: StoredStep[]; step: StoredStep }> {
    const loaded = await this.load(input);
    if (!loaded) throw new Error(`Run ${input.runId} does not exist in workspace ${input.workspaceId}.`);
    return { ...loaded, step: stepNamed(loaded.steps, input.stepId) };
  }

  /**
   * Progress from the steps as this task read them plus the ones it just ended. Parallel branches
   * each count from their own reading, so one may write a lower count than another: the store keeps
   * the highest, the next plan counts again from scratch, and the terminal state writes the final one.
   * A count no higher than the one this task read is not written: the store would refuse it anyway
   * (progress never moves back), so the write would cost a round trip for nothing. That is every plan
   * that follows a step which recorded its own progress.
   */
  private async recordProgress(input: RunTaskInput, run: Pick<RunRecord, 'stepsCompleted'>, steps: readonly StoredStep[], nowCompleted: readonly string[]): Promise<void> {
    const counted = steps.filter((step) => step.status === 'COMPLETED' || step.status === 'SKIPPED' || nowCompleted.includes(step.stepId));
    if (counted.length <= run.stepsCompleted) return;
    await this.store.recordProgress(input.workspaceId, input.runId, counted.length);
  }
}

/** What a step's expressions read: the input, the steps so far, the run, and a nested run's item. */
export function contextOf(run: StoredRun, steps: readonly StoredStep[]): ExpressionContext {
  return {
    body: run.body ?? null,
    steps: Object.fromEntries(steps.map((step) => [step.stepId, { status: step.status, ...(step.output !== undefined ? { output: step.output } : {}) }])),
    run: { id: run.id, workflowId: run.workflow.id },
    ...(run.parent ? { item: run.body, index: run.parent.index } : {}),
  };
}

function stepNamed(steps: readonly StoredStep[], stepId: string): StoredStep {
  const step = steps.find((candidate) => candidate.stepId === stepId);
  if (!step) throw new Error(`The run has no step ${stepId}.`);
  return step;
}

function indexOf(run: StoredRun, stepId: string): number {
  return definitionOf(run).steps.findIndex((step) => step.id === stepId);
}

function definitionOf(run: StoredRun): WorkflowDefinition {
  if (!run.definition) throw new Error(`The definition stored with run ${run.id} cannot be read.`);
  return run.definition;
}

/** Why a step still QUEUED when its run ends never ran. */
function neverRanMessage(steps: readonly StepRecord[], status: Exclude<RunStatus, 'PROCESSING'>): string {
  if (status === 'CLOSED') return 'Skipped: the run was closed before this step ran.';
  const failed = [...steps].sort((left, right) => left.index - right.index).find((step) => step.status === 'FAILED');
  if (failed) return `Skipped: step "${failed.stepId}" failed, so the run ended before this step ran.`;
  return `Skipped: the run ended ${status} before this step ran.`;
}

/** A step failure thrown in this process: an expression on the run's data, or the step's own failure. */
function failedOutcome(error: unknown): StepOutcome {
  if (error instanceof ExpressionEvaluationError) return { status: 'FAILED', failureCode: 'WORKFLOW_INPUT_INVALID', message: error.message };
  if (error instanceof StepFailedError) return { status: 'FAILED', failureCode: 'WORKFLOW_STEP_FAILED', message: error.message, ...(error.output ? { output: error.output } : {}) };
  return { status: 'FAILED', failureCode: 'WORKFLOW_STEP_FAILED', message: error instanceof Error ? error.message : String(error) };
}

/**
 * A failure the state machine caught for a step: a StepFailedError sent with SendTaskFailure carries
 * `{message, output}` as its cause; a Lambda error carries `{errorMessage}`; States.* errors a text.
 */
export function outcomeOfCaughtFailure(failure: CaughtFailure): StepOutcome {
  let message = describeFailure(failure);
  let output: unknown;
  if (failure.Error === 'StepFailedError' && failure.Cause) {
    try {
      const cause = JSON.parse(failure.Cause) as { message?: unknown; output?: unknown; errorMessage?: unknown };
      if (typeof cause.message === 'string') message = cause.message;
      if (cause.output !== undefined) output = cause.output;
    } catch {
      // a plain text cause is the message
    }
  }
  const failureCode = failure.Error === 'ExpressionEvaluationError' ? 'WORKFLOW_INPUT_INVALID' : 'WORKFLOW_STEP_FAILED';
  return { status: 'FAILED', failureCode, message, ...(output !== undefined ? { output } : {}) };
}

function describeFailure(failure: CaughtFailure): string {
  if (failure.Error === 'States.Timeout') return 'the step timed out.';
  const message = messageOfCause(failure.Cause);
  return message || failure.Error || 'unknown failure';
}
