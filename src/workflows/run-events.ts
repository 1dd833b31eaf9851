import { deterministicEventId, type EventEnvelope } from '../events/event-envelope.ts';
import type { RunView } from './workflow-run.ts';

// The workflow run events (spec, Event types): `workflow.run.completed` for COMPLETED, and
// `workflow.run.failed` for FAILED (with `error`) and CLOSED (without). Only top-level runs emit
// events; a nested run's summary travels in its parent's step (nestedRuns) instead.

/** One event per run: its id is derived from the run id and when it ended, so recording it again keeps one. */
export function workflowRunEventOf(run: RunView & { completedAt: string }, workflowId: string): EventEnvelope {
  if (run.status === 'PROCESSING') throw new Error(`Run ${run.id} is not terminal.`);
  const { id, parentRunId: _parentRunId, error, ...fields } = run;
  return {
    eventId: deterministicEventId(`${id}#${run.status}`, run.completedAt),
    eventType: run.status === 'COMPLETED' ? 'workflow.run.completed' : 'workflow.run.failed',
    occurredAt: run.completedAt,
    apiVersion: 'v1',
    data: {
      runId: id,
      workflowId,
      ...fields,
      // The spec: `null` when completed, the failure when failed; a closed run carries none.
      ...(run.status === 'COMPLETED' ? { error: null } : run.status === 'FAILED' ? { error } : {}),
    },
  };
}
