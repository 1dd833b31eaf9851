import { useState } from 'preact/hooks';
import { answerOf, type ConsoleApi } from '../api-client.ts';
import { runStatuses, type RunStatus } from '../api-types.ts';
import { ErrorNotice, StatusBadge, formatDuration, formatTime, useResource } from '../resource-loading.tsx';
import { hrefOf } from '../routing.ts';
import { ChoiceFilter, choicesOf, TimeRangeInputs, type TimeRange } from './list-filters.tsx';

export function RunsList({ api }: { api: ConsoleApi }) {
  const [status, setStatus] = useState<RunStatus | ''>('');
  // What is typed in the workflow box, and what the list is filtered by: applied on Enter, on Apply and
  // when the box loses focus, not on every key (each would be a request).
  const [workflowDraft, setWorkflowDraft] = useState('');
  const [workflowId, setWorkflowId] = useState('');
  const [range, setRange] = useState<TimeRange>({});
  const query = { size: 100, ...(status ? { status } : {}), ...(workflowId.trim() ? { workflowId: workflowId.trim() } : {}), ...range };
  const runs = useResource(() => answerOf(api.GET('/workflow-runs', { params: { query } })), [JSON.stringify(query)], {
    refreshMs: 2000,
    keepRefreshing: (page) => page.data.some((run) => run.status === 'PROCESSING'),
  });
  return (
    <section aria-labelledby="runs-heading">
      <h1 id="runs-heading">Workflow runs</h1>
      <form class="filters" aria-label="Filter runs" onSubmit={(event) => event.preventDefault()}>
        <ChoiceFilter label="Status" name="status" value={status} choices={choicesOf(runStatuses)} onChange={setStatus} />
        <label>
          Workflow <span class="hint">(wf_… id)</span>
          <input
            type="text"
            name="workflowId"
            value={workflowDraft}
            placeholder="wf_invoice_review"
            onInput={(event) => setWorkflowDraft(event.currentTarget.value)}
            onChange={(event) => setWorkflowId(event.currentTarget.value)}
            onKeyDown={(event) => {
              if (event.key === 'Enter') setWorkflowId(event.currentTarget.value);
            }}
          />
        </label>
        <TimeRangeInputs noun="Created" range={range} onChange={setRange} />
        <button type="button" class="filters-apply" onClick={() => setWorkflowId(workflowDraft)}>
          Apply
        </button>
      </form>
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
                  <td>
                    {run.workflow.name} <span class="hint">({run.workflow.id})</span>
                  </td>
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
