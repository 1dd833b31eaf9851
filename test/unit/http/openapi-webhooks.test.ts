import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { eventTypes, type EventEnvelope } from '../../../src/events/event-envelope.ts';
import { extractionEventOf } from '../../../src/extractions/extraction-events.ts';
import type { ExtractionOutput, ExtractionRecord } from '../../../src/extractions/extraction.ts';
import { buildOpenApiDocument } from '../../../src/http/openapi-document.ts';
import { routes } from '../../../src/manifest/routes.ts';
import { webhookEvents } from '../../../src/manifest/webhook-events.ts';
import { workflowRunEventOf } from '../../../src/workflows/run-events.ts';
import type { RunView } from '../../../src/workflows/workflow-run.ts';

// The document's `webhooks` section: one entry per event type, whose schema the events the service
// actually writes (the same functions that record them) satisfy, and which a wrong payload fails.

const document = buildOpenApiDocument(routes, '/v1', webhookEvents);
type WebhookEntry = { post: { requestBody: { content: { 'application/json': { schema: object } } }; parameters: { name: string }[] } };
const webhooks = document.webhooks as Record<string, WebhookEntry>;

function problemsOf(event: EventEnvelope): string[] {
  const entry = webhooks[event.eventType];
  if (!entry) return [`no webhooks entry for ${event.eventType}`];
  const validate = new Ajv2020({ strict: false, allErrors: true }).compile(entry.post.requestBody.content['application/json'].schema);
  return validate(JSON.parse(JSON.stringify(event))) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

const times = { createdAt: '2026-03-01T10:00:00.000Z', updatedAt: '2026-03-01T10:00:05.000Z', completedAt: '2026-03-01T10:00:05.000Z' };

function extraction(overrides: Partial<ExtractionRecord>): ExtractionRecord {
  return {
    id: 'ext_01JZ00000000000000000000X1',
    workspaceId: 'ws_a',
    status: 'COMPLETED',
    generation: 1,
    ...times,
    labels: { batch: '7' },
    document: { fileId: 'file_01JZ00000000000000000000F1', fileName: 'invoice.pdf', mimeType: 'application/pdf', size: 1024, pageCount: 1 },
    outputAvailable: true,
    ...overrides,
  };
}

const output: ExtractionOutput = {
  docType: 'invoice',
  fieldCount: 2,
  fields: [
    { id: 'total', name: 'total', type: 'amount', value: 119, metadata: { extracted: true, confidence: 0.97, page: 1, placement: { x: 0.7, y: 0.8, width: 0.1, height: 0.02 } } },
    {
      id: 'line_items',
      name: 'line_items',
      type: 'table',
      value: [{ description: 'Chair', quantity: 1, amount: 100 }],
      metadata: {
        extracted: true,
        confidence: 0.92,
        page: 1,
        rows: [{ confidence: 0.92, page: 1, cells: { description: { confidence: 0.9 }, quantity: { confidence: 0.95 }, amount: { confidence: 0.97 } } }],
      },
    },
  ],
};

function run(overrides: Partial<RunView> & { completedAt: string }): RunView & { completedAt: string } {
  return {
    id: 'run_01JZ00000000000000000000R1',
    status: 'COMPLETED',
    ...times,
    startedAt: times.createdAt,
    workflow: { id: 'wf_01JZ00000000000000000000W1', name: 'Approve invoices' },
    progress: { stepsCompleted: 1, stepsTotal: 1 },
    durationMs: 5000,
    steps: [{ id: 'check', name: 'check', type: 'transform', status: 'COMPLETED', dependsOn: [], output: { approved: true } }],
    ...overrides,
  };
}

describe('the OpenAPI document\'s webhooks', () => {
  it('is still a valid OpenAPI 3.1 document, with one POST per event type and the signature headers', async () => {
    const result = await new Validator().validate(document as Parameters<Validator['validate']>[0]);

    expect(result.errors ?? []).toEqual([]);
    expect(Object.keys(webhooks).sort()).toEqual([...eventTypes].sort());
    for (const entry of Object.values(webhooks)) {
      expect(entry.post.parameters.map(({ name }) => name)).toEqual(expect.arrayContaining(['X-Paperflow-Signature', 'webhook-signature', 'X-Paperflow-Event-Id']));
    }
  });

  it('describes every extraction event the service writes', () => {
    expect(problemsOf(extractionEventOf(extraction({}), output))).toEqual([]);
    expect(
      problemsOf(extractionEventOf(extraction({ status: 'FAILED', outputAvailable: false, error: { code: 'DOCUMENT_NOT_ROUTED', message: 'No type matched.' } }), undefined)),
    ).toEqual([]);
    expect(
      problemsOf(
        extractionEventOf(
          extraction({ status: 'REJECTED', outputAvailable: false, document: { fileName: 'x.pdf' }, error: { code: 'DOCUMENT_REJECTED', message: 'Broken.' } }),
          undefined,
        ),
      ),
    ).toEqual([]);
  });

  it('describes every workflow run event the service writes: completed, failed with its error, closed', () => {
    expect(problemsOf(workflowRunEventOf(run({ completedAt: times.completedAt }), 'wf_01JZ00000000000000000000W1'))).toEqual([]);
    expect(
      problemsOf(
        workflowRunEventOf(run({ status: 'FAILED', completedAt: times.completedAt, error: { code: 'WORKFLOW_STEP_FAILED', message: 'Step check failed.' } }), 'wf_1'),
      ),
    ).toEqual([]);
    expect(problemsOf(workflowRunEventOf(run({ status: 'CLOSED', completedAt: times.completedAt }), 'wf_1'))).toEqual([]);
  });

  it('refuses a payload that is not what the service sends', () => {
    const completed = extractionEventOf(extraction({}), output);
    const withoutId = { ...completed, data: { ...completed.data, extractionId: undefined } };
    const wrongStatus = { ...completed, data: { ...completed.data, status: 'FAILED' } };
    const extraProperty = { ...completed, surprise: true };

    expect(problemsOf(withoutId as EventEnvelope)).not.toEqual([]);
    expect(problemsOf(wrongStatus as EventEnvelope)).not.toEqual([]);
    expect(problemsOf(extraProperty as EventEnvelope)).not.toEqual([]);
  });
});
