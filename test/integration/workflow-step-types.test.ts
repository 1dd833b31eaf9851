import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCliFor } from '../support/admin-cli-process.ts';
import { invoicePdf } from '../support/extraction-documents.ts';
import { workspaceKey } from '../support/extraction-client.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { startWebhookReceiver, type ReceivedWebhook, type RunningWebhookReceiver } from '../support/webhook-receiver.ts';
import { publishDefinition, WorkflowRunClient } from '../support/workflow-runs.ts';
import { useMetricSink, type RecordedMetric } from '../../src/infrastructure/metrics.ts';
import { workflowStore } from '../../src/composition/workflows.ts';
import { publishWorkflowDefinition } from '../../src/composition/workflow-publishing.ts';
import { corpusFile } from '../support/document-builders.ts';

// The step types that leave the run engine, end to end over HTTP: web_function against a real server on
// loopback (allowed by the explicit local setting), document_insights on a file sent as a multipart
// part, resumed through the outbox, the delivery queue's listeners and the task token.

const variables = {
  PAPERFLOW_ALLOW_PRIVATE_URLS: 'true',
  PAPERFLOW_WEB_FUNCTION_RETRY_DELAY_MS: '10',
  PAPERFLOW_LOCAL_RETRY_INTERVAL_MS: '10',
  PAPERFLOW_EVENT_OUTBOX_DRAIN_INTERVAL_SECONDS: '1',
  PAPERFLOW_EVENT_OUTBOX_GRACE_SECONDS: '1',
  // The shipped example's 60 s delay takes 0.6 s.
  PAPERFLOW_LOCAL_WAIT_TIME_SCALE: '0.01',
};

const workspaceId = 'ws_step_types';
let stack: StackUnderTest;
let client: WorkflowRunClient;
let server: RunningWebhookReceiver;
let received: ReceivedWebhook[] = [];
let answer: (request: ReceivedWebhook, response: ServerResponse) => void = (_request, response) => response.writeHead(404).end();

beforeAll(async () => {
  Object.assign(process.env, variables);
  server = await startWebhookReceiver((request, response) => {
    received.push(request);
    answer(request, response);
  });
  stack = await startStackUnderTest();
  client = new WorkflowRunClient(stack, await workspaceKey(workspaceId));
  await client.subscribeToRunEvents();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await server?.close();
  for (const name of Object.keys(variables)) delete process.env[name];
});

describe('web_function in a run', () => {
  it('calls the endpoint with the evaluated body and feeds its JSON answer to the next step', async () => {
    received = [];
    answer = (_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"approved":true,"limit":500}');
    const workflowId = await publishDefinition(workspaceId, [
      { id: 'check', type: 'web_function', with: { url: '{{ body.endpoint }}', headers: { 'X-Customer': '{{ body.customer }}' }, body: { amount: '{{ body.amount }}' } } },
      { id: 'decide', type: 'transform', needs: ['check'], with: { approved: '{{ steps.check.output.body.approved and body.amount <= steps.check.output.body.limit }}' } },
    ]);

    // The local setting lets the evaluated URL be the loopback server.
    const metrics: RecordedMetric[] = [];
    useMetricSink({ record: (metric) => metrics.push(metric) });
    const run = await client.run(workflowId, { customer: 'C-7', amount: 120, endpoint: `${server.url}/credit-check` }).finally(() => useMetricSink(undefined));

    expect(run.status).toBe('COMPLETED');
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe('/credit-check');
    expect(received[0]!.headers['x-customer']).toBe('C-7');
    expect(JSON.parse(received[0]!.body)).toEqual({ amount: 120 });
    expect(run.steps[0]).toMatchObject({ id: 'check', status: 'COMPLETED', output: { status: 200, body: { approved: true, limit: 500 } } });
    expect(run.steps[1]).toMatchObject({ id: 'decide', status: 'COMPLETED', output: { approved: true } });
    // The stack runs in this process: the run's end was measured once (deployed: an EMF line).
    expect(metrics.filter(({ name }) => name === 'RunDuration').map(({ dimension }) => dimension)).toEqual(['COMPLETED']);
  });

  it('fails the step and the run after its retries when the endpoint keeps answering 500, with workflow.run.failed', async () => {
    received = [];
    answer = (_request, response) => response.writeHead(500, { 'Content-Type': 'application/json' }).end('{"error":"down"}');
    const workflowId = await publishDefinition(workspaceId, [
      { id: 'notify', name: 'Notify the ERP', type: 'web_function', with: { url: '{{ body.endpoint }}', retries: 2 } },
      { id: 'after', type: 'transform', needs: ['notify'], with: { never: true } },
    ]);

    const run = await client.run(workflowId, { endpoint: `${server.url}/erp` });
    const event = (await client.eventsOfRun(run.id))[0];

    expect(received).toHaveLength(3);
    expect(run.status).toBe('FAILED');
    expect(run.error.code).toBe('WORKFLOW_STEP_FAILED');
    expect(run.error.message).toContain('notify');
    expect(run.steps[0]).toMatchObject({ id: 'notify', status: 'FAILED', output: { status: 500, body: { error: 'down' } } });
    expect(run.steps[1].status).not.toBe('COMPLETED');
    expect(event.eventType).toBe('workflow.run.failed');
    expect(event.data).toMatchObject({ runId: run.id, workflowId, status: 'FAILED', error: { code: 'WORKFLOW_STEP_FAILED' } });
  });
});

describe('a literal URL under the local setting', () => {
  const admin = adminCliFor(() => stack.dataDir);

  it('is published by paperflow-admin as the stack\'s runs allow it, and called: http on loopback', async () => {
    received = [];
    answer = (_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{"ok":true}');
    const folder = await mkdtemp(join(tmpdir(), 'paperflow-literal-url-'));
    const file = join(folder, 'literal.json');
    await writeFile(file, JSON.stringify({ id: 'wf_literal-loopback', name: 'Literal loopback', steps: [{ id: 'ping', type: 'web_function', with: { url: `${server.url}/literal` } }] }));

    const published = await admin('workflows', 'publish', file, '--workspace', workspaceId).finally(() => rm(folder, { recursive: true, force: true }));
    const run = await client.run('wf_literal-loopback', {});

    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(JSON.parse(published.stdout)).toEqual({ workflowId: 'wf_literal-loopback', version: 1 });
    expect(run.status).toBe('COMPLETED');
    expect(received.map((request) => request.path)).toEqual(['/literal']);
  });
});

describe('document_insights in a run', () => {
  it('extracts a file sent as a multipart part; extractionId is in the output and the extraction readable by id', async () => {
    const workflowId = await publishDefinition(workspaceId, [
      { id: 'read', type: 'document_insights', with: { file: '{{ body.invoice }}', labels: { channel: '{{ body.channel }}' } } },
      { id: 'summary', type: 'transform', needs: ['read'], with: { extraction: '{{ steps.read.output.extractionId }}', status: '{{ steps.read.output.status }}' } },
    ]);
    const form = new FormData();
    form.append('channel', 'email');
    form.append('invoice', new Blob([await invoicePdf({ invoiceNumber: 'WF-2024-7' })], { type: 'application/pdf' }), 'invoice.pdf');

    const started = await client.json(`/workflows/${workflowId}/runs`, { method: 'POST', body: form });
    const run = await client.waitForRunTerminal(started.body.id, 90_000);
    const step = run.steps[0];
    const extraction = await client.json(`/document-insights/extractions/${step.output.extractionId}`);

    expect(started.status).toBe(202);
    expect(run.status).toBe('COMPLETED');
    expect(step).toMatchObject({ id: 'read', status: 'COMPLETED', output: { status: 'COMPLETED' } });
    expect(step.output.extractionId).toMatch(/^ext_/);
    expect(step.output.fields).toBeDefined();
    expect(extraction.status).toBe(200);
    expect(extraction.body).toMatchObject({ id: step.output.extractionId, status: 'COMPLETED', labels: { channel: 'email', workflowRunId: run.id } });
    expect(run.steps[1].output).toEqual({ extraction: step.output.extractionId, status: 'COMPLETED' });
  });

  it('fails the run with the extraction named when the extraction cannot be started', async () => {
    const workflowId = await publishDefinition(workspaceId, [{ id: 'read', type: 'document_insights', with: { fileId: '{{ body.fileId }}' } }]);

    const run = await client.run(workflowId, { fileId: 'file_01ARZ3NDEKTSV4RRFFQ69G5FAV' }, 60_000);

    expect(run.status).toBe('FAILED');
    expect(run.error.code).toBe('WORKFLOW_STEP_FAILED');
    expect(run.steps[0].status).toBe('FAILED');
    expect(run.steps[0].message).toMatch(/file/i);
  });
});

describe('for_each over an extraction\'s line items', () => {
  it('starts one nested run per row of values.line_items, each with that row\'s cells', async () => {
    const childId = await publishDefinition(workspaceId, [{ id: 'book', type: 'transform', with: { description: '{{ item.description }}', amount: '{{ item.amount }}', position: '{{ index }}' } }]);
    const parentId = await publishDefinition(workspaceId, [
      { id: 'read', type: 'document_insights', with: { file: '{{ body.invoice }}' } },
      { id: 'each', type: 'for_each', needs: ['read'], with: { items: '{{ steps.read.output.values.line_items }}', workflowId: childId } },
    ]);
    const form = new FormData();
    form.append('invoice', new Blob([await readFile(corpusFile('invoice2data/AzureInterior.pdf'))], { type: 'application/pdf' }), 'AzureInterior.pdf');

    const started = await client.json(`/workflows/${parentId}/runs`, { method: 'POST', body: form });
    const run = await client.waitForRunTerminal(started.body.id, 120_000);
    const rows = run.steps[0].output.values.line_items as { description: string; amount: number }[];
    const nested = await Promise.all(run.steps[1].output.runIds.map(async (id: string) => (await client.get(id)).body));

    expect(run.status).toBe('COMPLETED');
    expect(rows.length).toBeGreaterThan(0);
    expect(run.steps[1].output).toMatchObject({ count: rows.length, completed: rows.length, failed: 0 });
    expect(nested.map((child) => child.steps[0].output)).toEqual(rows.map((row, position) => ({ description: row.description, amount: row.amount, position })));
  });
});

describe('the shipped example, docs/workflow-example.yaml', () => {
  it('publishes and runs on a corpus invoice, its summary carrying the invoice\'s own values', async () => {
    const exampleWorkspace = 'ws_step_types_example';
    const exampleClient = new WorkflowRunClient(stack, await workspaceKey(exampleWorkspace));
    const definition = await readFile(new URL('../../docs/workflow-example.yaml', import.meta.url), 'utf8');
    const invoice = corpusFile('invoice2data/AzureInterior.pdf');
    const expected = JSON.parse(await readFile(corpusFile('invoice2data/AzureInterior.expected.json'), 'utf8')).fields;
    const form = new FormData();
    form.append('invoice', new Blob([await readFile(invoice)], { type: 'application/pdf' }), 'AzureInterior.pdf');

    const published = await publishWorkflowDefinition(exampleWorkspace, definition, 'yaml');
    const started = await exampleClient.json('/workflows/wf_invoice-intake/runs', { method: 'POST', body: form });
    const run = await exampleClient.waitForRunTerminal(started.body.id, 120_000);
    const step = (id: string) => run.steps.find((each: any) => each.id === id);

    expect(published).toEqual({ ok: true, workflowId: 'wf_invoice-intake', version: 1 });
    expect(run.status).toBe('COMPLETED');
    expect(step('extract').output.values).toMatchObject({ invoice_number: expected.invoice_number, total_amount: expected.total_amount });
    expect(step('summary').output).toEqual({
      extractionId: step('extract').output.extractionId,
      invoiceNumber: expected.invoice_number,
      total: expected.total_amount,
      currency: expected.currency,
      title: `Invoice ${expected.invoice_number} from ${expected.seller_name}`,
    });
    expect(step('settle').status).toBe('COMPLETED');
    // 279.84 is not over 1000: no approval asked, for a reason the step says.
    expect(step('approve')).toMatchObject({ status: 'SKIPPED', message: 'Skipped: its condition (steps.summary.output.total > 1000) was false.' });
  });
});
