import * as z from 'zod/mini';
import type { WebhookEventDefinition } from '../platform/webhook-event-table.ts';
import { runErrorSchema, runFields, stepSchema } from './routes.ts';

// The `data` of the workflow run events as workflowRunEventOf (run-events.ts) writes it: the run as
// GET /workflow-runs/{runId} shows it, with `runId` and `workflowId` in place of `id`; `error` is null
// when COMPLETED and the failure when FAILED; a CLOSED run (also workflow.run.failed) carries none.

const { id: _id, parentRunId: _parentRunId, error: _error, status: _status, ...sharedFields } = runFields;

const runEventFields = {
  runId: z.string(),
  workflowId: z.string(),
  ...sharedFields,
  completedAt: z.string(),
  steps: z.array(stepSchema),
};

export const runWebhookEvents: WebhookEventDefinition[] = [
  {
    eventType: 'workflow.run.completed',
    summary: 'A top-level workflow run completed, with its steps and their outputs.',
    data: z.object({ ...runEventFields, status: z.literal('COMPLETED'), error: z.null() }),
  },
  {
    eventType: 'workflow.run.failed',
    summary: 'A top-level workflow run failed (with the error) or was closed (without one).',
    data: z.union([
      z.object({ ...runEventFields, status: z.literal('FAILED'), error: runErrorSchema }),
      z.object({ ...runEventFields, status: z.literal('CLOSED') }),
    ]),
  },
];
