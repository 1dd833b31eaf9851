import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoicePdf } from '../support/extraction-documents.ts';
import { freePort } from '../support/free-port.ts';
import { bootstrapApiKey } from '../support/local-stack-harness.ts';
import { stackStartUpAllowanceMs, startLocalStackProcess, type LocalStackProcess } from '../support/local-stack-process.ts';
import { startWebhookReceiver, type ReceivedWebhook, type RunningWebhookReceiver } from '../support/webhook-receiver.ts';

// A restart of `npm start` does not abandon work (README, What the local stack is): the stack process
// is stopped (SIGTERM) or killed (SIGKILL) while an extraction, a workflow run (web_function) and a
// run of a document_insights step are PROCESSING, each held on a request to a loopback server that
// answers nothing the first time; started again on the same data folder, the stack runs their
// executions again, and each ends COMPLETED with one event and one webhook delivery (the
// document_insights step with one extraction).

const run = promisify(execFile);
const completedTypes = ['document-insights.extraction.completed', 'workflow.run.completed'];
/** The brief's promise: every such extraction or run ends within a minute of the restart. */
const endsWithinMs = 60_000;

let folder: string;
let dataDir: string;
let port: number;
let stack: LocalStackProcess | undefined;
let server: RunningWebhookReceiver;
let invoice: Buffer;
const requests: ReceivedWebhook[] = [];
const held: ServerResponse[] = [];
let workflowId: string;
let documentWorkflowId: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'paperflow-restart-'));
  dataDir = join(folder, 'data');
  port = await freePort();
  invoice = await invoicePdf({ invoiceNumber: 'RESTART-1' });
  // The document, the web_function's endpoint and the webhook receiver: a path's first request under
  // /held/ gets no answer (the work is then in flight), every later one is answered.
  server = await startWebhookReceiver((request, response) => {
    const firstOfItsPath = !requests.some((earlier) => earlier.path === request.path);
    requests.push(request);
    if (request.path.startsWith('/held/') && firstOfItsPath) return void held.push(response);
    if (request.path.endsWith('.pdf')) return void response.writeHead(200, { 'content-type': 'application/pdf' }).end(invoice);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
  });
  stack = await startStack();
  const subscription = await api('/event-subscriptions', { method: 'POST', body: { name: 'restart', endpointUrl: `${server.url}/webhooks`, eventTypes: completedTypes } });
  expect(subscription.status).toBe(201);
  workflowId = await publish({ id: 'wf_restart', name: 'Restart', steps: [{ id: 'call', type: 'web_function', with: { url: '{{ body.url }}', method: 'GET' } }] });
  documentWorkflowId = await publish({ id: 'wf_restart_document', name: 'Restart document', steps: [{ id: 'read', type: 'document_insights', with: { url: '{{ body.url }}' } }] });
}, stackStartUpAllowanceMs + 60_000);

afterAll(async () => {
  await stack?.kill('SIGKILL');
  await server?.close();
  await rm(folder, { recursive: true, force: true });
});

/** Published as an operator does, by the admin CLI reaching the running stack through its data folder. */
async function publish(definition: { id: string; name: string; steps: unknown[] }): Promise<string> {
  const definitionFile = join(folder, `${definition.id}.json`);
  await writeFile(definitionFile, JSON.stringify(definition));
  const published = await run('node_modules/.bin/node', ['bin/paperflow-admin.mjs', 'workflows', 'publish', definitionFile, '--workspace', 'ws_default'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PAPERFLOW_DATA_DIR: dataDir },
  });
  return JSON.parse(published.stdout).workflowId;
}

function startStack(): Promise<LocalStackProcess> {
  return startLocalStackProcess({
    dataDir,
    port,
    environment: { PAPERFLOW_ALLOW_PRIVATE_URLS: 'true', PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS: '5' },
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function api(path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: any }> {
  const response = await fetch(`${stack!.baseUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: { authorization: `api-key ${bootstrapApiKey}`, ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: response.status, body: await response.json() };
}

async function statusOf(path: string): Promise<string> {
  const { status, body } = await api(path);
  if (status !== 200) throw new Error(`GET ${path} answered ${status}: ${JSON.stringify(body)}`);
  return body.status;
}

/** The recorded events (GET /events, then each one's data) naming this extraction or run. */
async function eventsNaming(id: string): Promise<{ eventId: string; eventType: string }[]> {
  const listed = await api('/events?size=100');
  const events = [];
  for (const summary of listed.body.data as { eventId: string }[]) {
    const event = await api(`/events/${summary.eventId}`);
    if (event.body.data?.extractionId === id || event.body.data?.runId === id) events.push(event.body);
  }
  return events;
}

function deliveriesNaming(id: string) {
  return requests
    .filter((request) => request.path === '/webhooks')
    .map((request) => JSON.parse(request.body) as { eventId: string; data: { extractionId?: string; runId?: string } })
    .filter((envelope) => envelope.data.extractionId === id || envelope.data.runId === id);
}

describe('a restart of the local stack', { timeout: 2 * stackStartUpAllowanceMs + 3 * endsWithinMs }, () => {
  it.each(['SIGTERM', 'SIGKILL'] as const)('%s while an extraction and workflow runs are processing: each ends after the restart, with one event', async (signal) => {
    const documentPath = `/held/${signal}/invoice.pdf`;
    const stepPath = `/held/${signal}/step`;
    const stepDocumentPath = `/held/${signal}/step-document.pdf`;
    const extraction = await api('/document-insights/extractions', { method: 'POST', body: { document: { url: `${server.url}${documentPath}` } } });
    expect(extraction.status).toBe(202);
    const started = await api(`/workflows/${workflowId}/runs`, { method: 'POST', body: { url: `${server.url}${stepPath}` } });
    expect(started.status).toBe(202);
    const documentRun = await api(`/workflows/${documentWorkflowId}/runs`, { method: 'POST', body: { url: `${server.url}${stepDocumentPath}` } });
    expect(documentRun.status).toBe(202);
    const [extractionId, runId, documentRunId] = [extraction.body.id as string, started.body.id as string, documentRun.body.id as string];
    await expect.poll(() => requests.map((request) => request.path), { timeout: 30_000, interval: 50 }).toEqual(expect.arrayContaining([documentPath, stepPath, stepDocumentPath]));
    expect(await statusOf(`/document-insights/extractions/${extractionId}`)).toBe('PROCESSING');
    expect(await statusOf(`/workflow-runs/${runId}`)).toBe('PROCESSING');
    expect(await statusOf(`/workflow-runs/${documentRunId}`)).toBe('PROCESSING');

    await stack!.kill(signal);
    stack = await startStack();

    await expect.poll(() => statusOf(`/document-insights/extractions/${extractionId}`), { timeout: endsWithinMs, interval: 250 }).toBe('COMPLETED');
    await expect.poll(() => statusOf(`/workflow-runs/${runId}`), { timeout: endsWithinMs, interval: 250 }).toBe('COMPLETED');
    await expect.poll(() => deliveriesNaming(extractionId).length + deliveriesNaming(runId).length, { timeout: endsWithinMs, interval: 250 }).toBe(2);
    const events = [...(await eventsNaming(extractionId)), ...(await eventsNaming(runId))];
    expect(events.map((event) => event.eventType).sort()).toEqual(completedTypes);
    expect(deliveriesNaming(extractionId).map((delivery) => delivery.eventId)).toEqual(events.filter((event) => event.eventType === completedTypes[0]).map((event) => event.eventId));
    expect(deliveriesNaming(runId).map((delivery) => delivery.eventId)).toEqual(events.filter((event) => event.eventType === completedTypes[1]).map((event) => event.eventId));
    // Each held request was made again by the restarted stack, once.
    expect(requests.filter((request) => request.path === documentPath)).toHaveLength(2);
    expect(requests.filter((request) => request.path === stepPath)).toHaveLength(2);

    // The document_insights step ran again and waited on the extraction it had started: one extraction.
    await expect.poll(() => statusOf(`/workflow-runs/${documentRunId}`), { timeout: endsWithinMs, interval: 250 }).toBe('COMPLETED');
    const stepExtractions = await api(`/document-insights/extractions?labels[workflowRunId]=${documentRunId}`);
    expect(stepExtractions.body.data.map((item: { status: string }) => item.status)).toEqual(['COMPLETED']);
    const stepExtractionId = stepExtractions.body.data[0].id as string;
    await expect.poll(() => deliveriesNaming(stepExtractionId).length + deliveriesNaming(documentRunId).length, { timeout: endsWithinMs, interval: 250 }).toBe(2);
    const documentEvents = [...(await eventsNaming(stepExtractionId)), ...(await eventsNaming(documentRunId))];
    expect(documentEvents.map((event) => event.eventType).sort()).toEqual(completedTypes);
    expect(requests.filter((request) => request.path === stepDocumentPath)).toHaveLength(2);
  });
});
