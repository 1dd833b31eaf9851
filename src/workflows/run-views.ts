import { isIdentifier } from '../infrastructure/identifiers.ts';
import { InvalidRequestError, NotFoundError } from '../platform/errors.ts';
import { parsePageRequest } from '../platform/pagination.ts';
import { nestedRunIdsOf } from './nested-runs.ts';
import type { RunListQuery, RunStore, StoredRun, StoredStep } from './run-store.ts';
import { runViewOf, stepViewOf, type RunView, type StepView } from './workflow-run.ts';

/**
 * Runs as the API shows them: GET /workflow-runs/{runId} (steps with outputs, for_each steps with
 * their nested runs) and GET /workflow-runs. Reads only: the read handlers bundle this and the store,
 * not the engine (expressions, step types, orchestration).
 */
export class RunViews {
  constructor(private readonly store: RunStore) {}

  async getRun(workspaceId: string, runId: string): Promise<RunView> {
    const loaded = isIdentifier('run', runId) ? await this.store.get(workspaceId, runId) : undefined;
    if (!loaded) throw new NotFoundError(`Workflow run ${runId} does not exist.`);
    return this.viewOf(loaded.run, loaded.steps);
  }

  /** Summaries of top-level runs (no steps), exact totals. */
  async listRuns(workspaceId: string, query: RunListQuery): Promise<{ data: RunView[]; totalItems: number }> {
    const { records, totalItems } = await this.store.list(workspaceId, query);
    return { data: records.map((record) => runViewOf(record)), totalItems };
  }

  async viewOf(run: StoredRun, steps: readonly StoredStep[]): Promise<RunView> {
    // The DAG's edges come from the run's own snapshot of its definition, so a later publish of the
    // workflow does not redraw an old run.
    const needsByStep = new Map((run.definition?.steps ?? []).map((step) => [step.id, step.needs]));
    return runViewOf(run, await Promise.all(steps.map((step) => this.stepViewOf(run.workspaceId, step, needsByStep.get(step.stepId) ?? []))));
  }

  private async stepViewOf(workspaceId: string, step: StoredStep, dependsOn: readonly string[]): Promise<StepView> {
    const nested = step.type === 'for_each' ? await this.store.getRecords(workspaceId, nestedRunIdsOf(step)) : [];
    return stepViewOf(step, dependsOn, nested);
  }
}

/** The list query as the route's zod schema leaves it (strings, checked enums and datetimes). */
export interface ListRunsQueryParameters {
  page?: string;
  size?: string;
  status?: RunListQuery['status'];
  workflowId?: string;
  from?: string;
  to?: string;
  sortBy?: RunListQuery['sortBy'];
  sort?: RunListQuery['sort'];
}

/** Defaults (createdAt, desc, page 0, size 50), UTC-normalised bounds; `from` after `to` is 400. */
export function runListQueryOf(parameters: ListRunsQueryParameters): RunListQuery {
  const { page, size } = parsePageRequest({ page: parameters.page, size: parameters.size });
  const from = parameters.from !== undefined ? new Date(parameters.from).toISOString() : undefined;
  const to = parameters.to !== undefined ? new Date(parameters.to).toISOString() : undefined;
  if (from !== undefined && to !== undefined && from > to) throw new InvalidRequestError('Query parameter "from" must not be after "to".');
  return {
    page,
    size,
    ...(parameters.status ? { status: parameters.status } : {}),
    ...(parameters.workflowId ? { workflowId: parameters.workflowId } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {}),
    sortBy: parameters.sortBy ?? 'createdAt',
    sort: parameters.sort ?? 'desc',
  };
}
