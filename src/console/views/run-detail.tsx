import { useState } from 'preact/hooks';
import { answerOf, type ConsoleApi } from '../api-client.ts';
import type { WorkflowStep } from '../api-types.ts';
import { ErrorNotice, RecordedErrorNotice, StatusBadge, formatDuration, formatTime, useResource } from '../resource-loading.tsx';
import { hrefOf } from '../routing.ts';
import { layOutSteps } from './step-graph.ts';

const nodeWidth = 190;
const nodeHeight = 68;
const columnGap = 56;
const rowGap = 20;

export function RunDetail({ api, id }: { api: ConsoleApi; id: string }) {
  const run = useResource(() => answerOf(api.GET('/workflow-runs/{runId}', { params: { path: { runId: id } } })), [id], {
    refreshMs: 1000,
    keepRefreshing: (loaded) => loaded.status === 'PROCESSING',
  });
  const [selectedStepId, setSelectedStepId] = useState<string | undefined>(undefined);
  const loaded = run.value;
  const selected = loaded?.steps?.find((step) => step.id === selectedStepId) ?? loaded?.steps?.[0];

  return (
    <section aria-labelledby="run-heading">
      <p>
        <a href={loaded?.parentRunId ? hrefOf({ view: 'run', id: loaded.parentRunId }) : hrefOf({ view: 'runs' })}>
          ← {loaded?.parentRunId ? 'Parent run' : 'Workflow runs'}
        </a>
      </p>
      <h1 id="run-heading">{loaded ? `${loaded.workflow.name}: ${id}` : id}</h1>
      <ErrorNotice error={run.error} />
      {loaded ? (
        <>
          <p class="summary">
            <StatusBadge status={loaded.status} /> {loaded.progress.stepsCompleted}/{loaded.progress.stepsTotal} steps · {formatDuration(loaded.durationMs)} ·
            created {formatTime(loaded.createdAt)}
          </p>
          <RecordedErrorNotice error={loaded.error} />
          <StepGraph steps={loaded.steps ?? []} selectedStepId={selected?.id} onSelect={setSelectedStepId} />
          {selected ? <StepDetail step={selected} /> : null}
        </>
      ) : null}
    </section>
  );
}

function StepGraph({ steps, selectedStepId, onSelect }: { steps: readonly WorkflowStep[]; selectedStepId: string | undefined; onSelect(id: string): void }) {
  const placed = layOutSteps(steps);
  const positions = new Map(placed.map((entry) => [entry.step.id, { x: entry.column * (nodeWidth + columnGap), y: entry.row * (nodeHeight + rowGap) }]));
  const width = Math.max(...placed.map((entry) => entry.column), 0) * (nodeWidth + columnGap) + nodeWidth;
  const height = Math.max(...placed.map((entry) => entry.row), 0) * (nodeHeight + rowGap) + nodeHeight;
  return (
    <div class="graph-scroll">
      <div class="graph" role="list" aria-label="Steps, each after the steps it depends on" style={{ width: `${width}px`, height: `${height}px` }}>
        <svg class="graph-edges" width={width} height={height} aria-hidden="true">
          {placed.flatMap(({ step }) =>
            (step.dependsOn ?? []).map((dependencyId) => {
              const from = positions.get(dependencyId);
              const to = positions.get(step.id)!;
              if (!from) return null;
              const startX = from.x + nodeWidth;
              const startY = from.y + nodeHeight / 2;
              const endX = to.x;
              const endY = to.y + nodeHeight / 2;
              const middleX = (startX + endX) / 2;
              return <path d={`M${startX},${startY} C${middleX},${startY} ${middleX},${endY} ${endX},${endY}`} />;
            }),
          )}
        </svg>
        {placed.map(({ step }) => {
          const position = positions.get(step.id)!;
          return (
            <div role="listitem" key={step.id}>
              <button
                type="button"
                class={`step-node status-border-${step.status.toLowerCase()}${step.id === selectedStepId ? ' selected' : ''}`}
                data-step-id={step.id}
                aria-pressed={step.id === selectedStepId}
                style={{ left: `${position.x}px`, top: `${position.y}px`, width: `${nodeWidth}px`, height: `${nodeHeight}px` }}
                onClick={() => onSelect(step.id)}
              >
                <span class="step-name">{step.name}</span>
                <span class="step-meta">
                  <StatusBadge status={step.status} /> {formatDuration(step.durationMs)}
                </span>
                {step.dependsOn && step.dependsOn.length > 0 ? <span class="visually-hidden">, after {step.dependsOn.join(', ')}</span> : null}
              </button>
            </div>
          );
        })}
      </div>
    </div>
  );
}

function StepDetail({ step }: { step: WorkflowStep }) {
  return (
    <section class="step-detail" aria-labelledby="step-heading">
      <h2 id="step-heading">
        Step {step.name} <span class="hint">({step.type})</span>
      </h2>
      <p>
        <StatusBadge status={step.status} /> {formatDuration(step.durationMs)}
        {step.message ? ` · ${step.message}` : ''}
      </p>
      {step.nestedRuns ? (
        <>
          <h3>Nested runs ({step.nestedRuns.count})</h3>
          <ul class="nested-runs">
            {step.nestedRuns.data.map((nested) => (
              <li key={nested.id}>
                <a href={hrefOf({ view: 'run', id: nested.id })}>{nested.id}</a> <StatusBadge status={nested.status} />
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h3>Output</h3>
      <pre class="json" tabIndex={0} aria-label={`Output of step ${step.name}`}>
        {step.output === undefined ? '—' : JSON.stringify(step.output, null, 2)}
      </pre>
    </section>
  );
}
