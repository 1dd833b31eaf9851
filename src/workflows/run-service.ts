import { logger } from '../infrastructure/logger.ts';
import { isIdentifier } from '../infrastructure/identifiers.ts';
import { ConflictError, DownstreamError, NotFoundError } from '../platform/errors.ts';
import type { RunEngine } from './run-engine.ts';
import type { ExecutionStatus, RunExecutions } from './run-executions.ts';
import type { RunStore } from './run-store.ts';
import type { RunViews } from './run-views.ts';
import { isWorkflowId } from './workflow-definition.ts';
import { runViewOf, stepViewOf, type RunError, type RunView } from './workflow-run.ts';
import type { WorkflowStore } from './workflow-store.ts';

export interface RunServiceDependencies {
  engine: RunEngine;
  views: RunViews;
  store: RunStore;
  workflows: Pick<WorkflowStore, 'get' | 'latestVersion'>;
  executions: RunExecutions;
  now?: () => Date;
}

export interface RunSweepReport {
  /** Runs in flight whose execution had ended or never existed: now FAILED. */
  failedLost: number;
  /** Ended runs whose event or parent notification was still pending: now done. */
  finished: number;
}

/** Starting runs (the API), the operator's close and the sweeper; reads are RunViews. */
export class RunService {
  private readonly now: () => Date;

  constructor(private readonly dependencies: RunServiceDependencies) {
    this.now = dependencies.now ?? (() => new Date());
  }

  /**
   * POST /workflows/{workflowId}/runs: the run in PROCESSING, its execution started. An unknown
   * workflow is 404, a disabled one 409; input problems surface later as a FAILED run.
   */
  async startRun(workspaceId: string, workflowId: string, readInput: () => Promise<unknown>): Promise<RunView> {
    const { engine, workflows, executions } = this.dependencies;
    const workflow = isWorkflowId(workflowId) ? await workflows.get(workspaceId, workflowId) : undefined;
    const version = workflow ? await workflows.latestVersion(workspaceId, workflowId) : undefined;
    if (!workflow || !version) throw new NotFoundError(`Workflow ${workflowId} does not exist.`);
    if (workflow.status !== 'enabled') throw new ConflictError(`Workflow ${workflowId} is disabled; an operator can enable it again.`);
    // Read only once the run will be accepted: a multipart input stores its files, which a 404 or a
    // 409 must not leave behind.
    const body = await readInput();
    const { record, steps } = await engine.createRun(workspaceId, { id: workflowId, version: version.version, definition: version.definition }, body);
    try {
      await executions.start({ workspaceId, runId: record.id });
    } catch (error) {
      logger.error('a workflow run could not start its execution', { runId: record.id, error });
      await engine.settle(record, steps, { status: 'FAILED', error: { code: 'WORKFLOW_RUN_FAILED', message: 'The run could not be started.' } });
      await engine.finishSettled(workspaceId, record.id);
      throw new DownstreamError('The run could not be started; retry with backoff.');
    }
    const needsByStep = new Map(version.definition.steps.map((step) => [step.id, step.needs ?? []]));
    return runViewOf(record, steps.map((step) => stepViewOf(step, needsByStep.get(step.stepId) ?? [])));
  }

  /**
   * `paperflow-admin runs close`: stops the execution and ends the run CLOSED (no error), with its
   * nested runs still in flight; the event `workflow.run.failed` follows. 409 when it already ended.
   */
  async closeRun(workspaceId: string, runId: string): Promise<RunView> {
    const { engine, store, executions } = this.dependencies;
    const loaded = isIdentifier('run', runId) ? await store.get(workspaceId, runId) : undefined;
    if (!loaded) throw new NotFoundError(`Workflow run ${runId} does not exist.`);
    if (loaded.run.status !== 'PROCESSING') throw new ConflictError(`Workflow run ${runId} already ended ${loaded.run.status}.`);
    await executions.stop(runId, 'Closed by an operator.', loaded.run.redriveCount);
    await engine.settle(loaded.run, loaded.steps, { status: 'CLOSED' });
    for (const nested of await engine.nestedRunsInFlight(loaded.run, loaded.steps)) await this.closeRun(workspaceId, nested.id).catch(() => undefined);
    await engine.finishSettled(workspaceId, runId);
    return this.dependencies.views.getRun(workspaceId, runId);
  }

  /**
   * POST /workflow-runs/{runId}/redrive (extension): a FAILED top-level run runs again from where it
   * failed. Its steps that did not complete run again, the completed ones keep their outputs and are
   * not run again (a for_each's completed nested runs neither), in a new execution of the run; the
   * run is PROCESSING until it ends again with its event. 409 for a run in any other state, for a
   * nested run (its parent is redriven) and for a disabled workflow.
   */
  async redriveRun(workspaceId: string, runId: string): Promise<RunView> {
    const { engine, store, workflows, executions } = this.dependencies;
    const loaded = isIdentifier('run', runId) ? await store.get(workspaceId, runId) : undefined;
    if (!loaded) throw new NotFoundError(`Workflow run ${runId} does not exist.`);
    const { run, steps } = loaded;
    if (run.parent) throw new ConflictError(`Workflow run ${runId} is a nested run; redrive its parent run ${run.parent.runId}.`);
    if (run.status !== 'FAILED') throw new ConflictError(`Workflow run ${runId} is ${run.status}; only a FAILED run can be redriven.`);
    if (!run.definition) throw new ConflictError(`Workflow run ${runId} cannot be redriven: the definition it ran cannot be read.`);
    const workflow = await workflows.get(workspaceId, run.workflow.id);
    if (workflow && workflow.status !== 'enabled') throw new ConflictError(`Workflow ${run.workflow.id} is disabled; an operator can enable it again.`);
    // The failure's event goes out before the run leaves FAILED (the sweeper may not have sent it yet).
    if (!run.settledAt) await engine.finishSettled(workspaceId, runId);
    const reopened = await engine.reopenForRedrive(run, steps, { from: ['FAILED'] });
    if (!reopened) throw new ConflictError(`Workflow run ${runId} is being redriven already.`);
    try {
      await executions.start({ workspaceId, runId }, reopened.redriveCount);
    } catch (error) {
      logger.error('a redriven workflow run could not start its execution', { runId, error });
      const current = await store.get(workspaceId, runId);
      if (current) await engine.settle(current.run, current.steps, { status: 'FAILED', error: { code: 'WORKFLOW_RUN_FAILED', message: 'The run could not be redriven.' } });
      await engine.finishSettled(workspaceId, runId);
      throw new DownstreamError('The run could not be redriven; retry with backoff.');
    }
    return this.dependencies.views.getRun(workspaceId, runId);
  }

  /**
   * Settles what the state machine could not: a run in flight whose execution ended (failed, timed
   * out, stopped) or never started is FAILED; an ended run whose event or parent notification is
   * pending gets them. Runs younger than `graceMs` are left to their execution.
   */
  async sweep(graceMs: number): Promise<RunSweepReport> {
    const { engine, store, executions } = this.dependencies;
    const report: RunSweepReport = { failedLost: 0, finished: 0 };
    const cutoff = this.now().getTime() - graceMs;
    for await (const candidate of store.needingAttention()) {
      try {
        if (candidate.status !== 'PROCESSING') {
          if (Date.parse(candidate.updatedAt) > cutoff) continue;
          await engine.finishSettled(candidate.workspaceId, candidate.runId);
          report.finished += 1;
          continue;
        }
        const status = await executions.status(candidate.runId, candidate.redriveCount);
        if (status === 'RUNNING' || (status === undefined && Date.parse(candidate.updatedAt) > cutoff)) continue;
        const loaded = await store.get(candidate.workspaceId, candidate.runId);
        if (!loaded) continue;
        await engine.settle(loaded.run, loaded.steps, { status: 'FAILED', error: lostExecutionError(status) });
        await engine.finishSettled(candidate.workspaceId, candidate.runId);
        report.failedLost += 1;
      } catch (error) {
        logger.warn('workflow run sweep: a run could not be settled; the next sweep tries again', { runId: candidate.runId, error });
      }
    }
    return report;
  }
}

function lostExecutionError(status: ExecutionStatus | undefined): RunError {
  if (status === 'TIMED_OUT') return { code: 'WORKFLOW_TIMED_OUT', message: 'The run took longer than its time limit.' };
  if (status === undefined) return { code: 'WORKFLOW_RUN_FAILED', message: 'The run\'s execution was lost before it ended.' };
  return { code: 'WORKFLOW_RUN_FAILED', message: `The run's execution ended ${status} before the run was recorded as ended.` };
}
