import * as z from 'zod/mini';
import { pageQueryParameters } from '../platform/pagination.ts';
import type { ResourceAccess } from '../platform/resource-access.ts';
import { defineRoute, type RouteDefinition } from '../platform/route-table.ts';
import { runStatuses, stepStatuses } from './workflow-run.ts';

// zod/mini for small handler bundles (see src/extractions/routes.ts); descriptions go to the global
// registry, which the OpenAPI document reads.

const integer = () => z.number().check(z.int());

export const runErrorSchema = z
  .object({ code: z.enum(['WORKFLOW_STEP_FAILED', 'WORKFLOW_INPUT_INVALID', 'WORKFLOW_TIMED_OUT', 'WORKFLOW_RUN_FAILED']), message: z.string() })
  .register(z.globalRegistry, {
    description:
      'WORKFLOW_STEP_FAILED names the step and its cause; WORKFLOW_INPUT_INVALID: an expression could not be evaluated on the input; ' +
      'WORKFLOW_TIMED_OUT: the run exceeded its time limit; WORKFLOW_RUN_FAILED: the run could not be processed.',
  });

export const runFields = {
  id: z.string(),
  status: z.enum(runStatuses),
  createdAt: z.string(),
  updatedAt: z.string(),
  startedAt: z.optional(z.string()),
  completedAt: z.optional(z.string()).register(z.globalRegistry, { description: 'Once COMPLETED, FAILED or CLOSED.' }),
  error: z.optional(runErrorSchema).register(z.globalRegistry, { description: 'Only when FAILED.' }),
  workflow: z.object({ id: z.string(), name: z.string() }),
  progress: z
    .object({ stepsCompleted: integer(), stepsTotal: integer() })
    .register(z.globalRegistry, { description: 'stepsCompleted counts completed and skipped steps.' }),
  durationMs: z.optional(integer()).register(z.globalRegistry, { description: 'completedAt - createdAt; once terminal.' }),
  computedDurationMs: z.optional(integer()).register(z.globalRegistry, {
    description: 'Active step time: the union of the steps\' active intervals, without delay steps and idle time of parallel branches.',
  }),
  parentRunId: z.optional(z.string()).register(z.globalRegistry, { description: 'For a nested run: the run whose for_each step started it.' }),
  redriveCount: z.optional(integer()).register(z.globalRegistry, {
    description: 'Extension (not in the spec): how many times the run was redriven (POST /workflow-runs/{runId}/redrive); absent until the first.',
  }),
  redrivenAt: z.optional(z.string()).register(z.globalRegistry, { description: 'Extension (not in the spec): when the latest redrive started.' }),
};

export const runSummarySchema = z.object(runFields);

export const stepSchema = z.object({
  id: z.string(),
  name: z.string(),
  // A string, as the spec has it: the step types are the registry's (src/workflows/step-types/registry.ts),
  // which the read handlers that bundle these schemas do not load (their schemas are zod classic).
  type: z.string().register(z.globalRegistry, { description: 'The step type: document_insights, web_function, transform, delay or for_each (README, Workflow step types).' }),
  status: z.enum(stepStatuses),
  dependsOn: z.array(z.string()).register(z.globalRegistry, { description: 'Ids of the steps this one waits for (the definition\'s needs): the edges of the run\'s step DAG.' }),
  startedAt: z.optional(z.string()),
  completedAt: z.optional(z.string()),
  durationMs: z.optional(integer()).register(z.globalRegistry, { description: 'completedAt - startedAt; once the step has both.' }),
  message: z.optional(z.string()),
  output: z.optional(z.unknown()).register(z.globalRegistry, { description: 'As the step type produces it (DESIGN.md, Workflows).' }),
  nestedRuns: z.optional(z.object({ count: integer(), data: z.array(runSummarySchema) })).register(z.globalRegistry, {
    description: 'for_each: its nested runs (summaries; GET /workflow-runs/{runId} with their id returns each in full).',
  }),
});

export const runSchema = z.object({ ...runFields, steps: z.array(stepSchema) });

const isoDateTime = z.iso.datetime({ offset: true });

export const listRunsQuerySchema = z.object({
  ...pageQueryParameters,
  status: z.optional(z.enum(runStatuses)),
  workflowId: z.optional(z.string()),
  from: z.optional(isoDateTime).register(z.globalRegistry, { description: 'Created at or after (ISO 8601).' }),
  to: z.optional(isoDateTime).register(z.globalRegistry, { description: 'Created at or before (ISO 8601).' }),
  sortBy: z
    .optional(z.enum(['createdAt', 'updatedAt', 'completedAt']))
    .register(z.globalRegistry, { description: 'Default createdAt. By completedAt, runs still in flight sort as latest.' }),
  sort: z.optional(z.enum(['asc', 'desc'])).register(z.globalRegistry, { description: 'Default desc.' }),
});

const startRunMultipartSchema = z.record(z.string(), z.string()).register(z.globalRegistry, {
  description: 'Text parts become body.<name> strings, JSON parts objects, file parts arrays of file nodes {fileId, fileName, mimeType, size}.',
});

const pageInfoSchema = z.object({ page: integer(), size: integer(), totalItems: integer(), totalPages: integer() });

const access: Record<'start' | 'redrive' | 'read', ResourceAccess> = {
  // Creates the run (large input in the files bucket; file parts are stored as files) and starts its
  // execution; a run that cannot start records its failure event.
  start: { recordsTable: 'readWrite', filesBucket: 'readWrite', stateMachines: { workflowRun: 'start' }, queues: { webhookDelivery: 'send' } },
  // Reopens the run and starts its next execution; records a pending failure event first, and the
  // failure event again when the execution cannot start.
  redrive: { recordsTable: 'readWrite', filesBucket: 'read', stateMachines: { workflowRun: 'start' }, queues: { webhookDelivery: 'send' } },
  read: { recordsTable: 'read', filesBucket: 'read' },
};

const tag = 'Workflows';

export const startWorkflowRunRoute = defineRoute({
  operationId: 'startWorkflowRun',
  method: 'POST',
  path: '/workflows/{workflowId}/runs',
  handler: 'functions/workflows/start-workflow-run.ts',
  acceptsIdempotencyKey: true,
  scope: 'workflows:run',
  access: access.start,
  summary: 'Start the newest version of a published workflow with any JSON body, no body, or multipart/form-data as its input.',
  tag,
  requestBody: {
    'application/json': z.unknown().register(z.globalRegistry, { description: 'Any JSON value: the run\'s body.' }),
    'multipart/form-data': startRunMultipartSchema,
  },
  requestBodyOptional: true,
  responses: { 202: { description: 'Accepted: the run in PROCESSING.', schema: runSchema } },
  errorStatuses: [400, 404, 409, 413, 415, 502],
});

export const listWorkflowRunsRoute = defineRoute({
  operationId: 'listWorkflowRuns',
  method: 'GET',
  path: '/workflow-runs',
  handler: 'functions/workflows/list-workflow-runs.ts',
  scope: 'workflows:read',
  access: access.read,
  summary: 'Run summaries (no steps; nested runs are listed by their parent), filtered, sorted and paged with exact totals.',
  tag,
  query: listRunsQuerySchema,
  responses: { 200: { description: 'A page of run summaries.', schema: z.object({ data: z.array(runSummarySchema), pageInfo: pageInfoSchema }) } },
  errorStatuses: [400, 502],
});

export const getWorkflowRunRoute = defineRoute({
  operationId: 'getWorkflowRun',
  method: 'GET',
  path: '/workflow-runs/{runId}',
  handler: 'functions/workflows/get-workflow-run.ts',
  scope: 'workflows:read',
  access: access.read,
  summary: 'A run or a nested run, with step outputs and nested runs.',
  tag,
  responses: { 200: { description: 'The run.', schema: runSchema } },
  errorStatuses: [404, 502],
});

export const redriveWorkflowRunRoute = defineRoute({
  operationId: 'redriveWorkflowRun',
  method: 'POST',
  path: '/workflow-runs/{runId}/redrive',
  handler: 'functions/workflows/redrive-workflow-run.ts',
  scope: 'workflows:run',
  access: access.redrive,
  summary: 'Run a FAILED run again from where it failed: its failed and skipped steps run again, completed steps keep their outputs and are not run again.',
  extension:
    'Like a Step Functions redrive. The run becomes PROCESSING again (redriveCount + 1, redrivenAt), in a new execution of the definition it ran; ' +
    'a for_each step starts none of its nested runs that completed, and redrives those that did not. It ends with a new ' +
    'workflow.run.completed or workflow.run.failed event (the earlier failure event stays). 409 CONFLICT unless the run is FAILED, ' +
    'for a nested run (redrive its parent) and for a disabled workflow.',
  tag,
  responses: { 202: { description: 'Accepted: the run, PROCESSING again.', schema: runSchema } },
  errorStatuses: [404, 409, 502],
});

/** This feature's rows, in the order the table lists them. */
export const workflowRoutes: RouteDefinition[] = [startWorkflowRunRoute, listWorkflowRunsRoute, getWorkflowRunRoute, redriveWorkflowRunRoute];
