import type { ApiClient, Page } from '../api-client.ts';
import type { WorkflowRun } from '../api-types.ts';
import { ErrorNotice, StatusBadge, formatDuration, formatTime, useResource } from '../resource-loading.tsx';
import { hrefOf } from '../routing.ts';

export function RunsList({ api }: { api: ApiClient }) {
  const runs = useResource(() => api.get<Page<WorkflowRun>>('/workflow-runs?size=100'), [], {
    refreshMs: 2000,
    keepRefreshing: (page) => page.data.some((run) => run.status === 'PROCESSING'),
  });
  return (
    <section aria-labelledby="runs-heading">
      <h1 id="runs-heading">Workflow runs</h1>
      <ErrorNotice error={runs.error} />
      {runs.value ? (
        <div class="table-scroll">
          <table class="list">
            <caption>{runs.value.pageInfo.totalItems} runs</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Workflow</th>
                <th scope="col">Status</th>
                <th scope="col">Steps</th>
                <th scope="col">Duration</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {runs.value.data.map((run) => (
                <tr key={run.id} data-run-id={run.id}>
                  <td>
                    <a href={hrefOf({ view: 'run', id: run.id })}>{run.id}</a>
                  </td>
                  <td>{run.workflow.name}</td>
                  <td>
                    <StatusBadge status={run.status} />
                  </td>
                  <td>
                    {run.progress.stepsCompleted}/{run.progress.stepsTotal}
                  </td>
                  <td>{formatDuration(run.durationMs)}</td>
                  <td>{formatTime(run.createdAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
