import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { apiKeyService, workspaceStore } from '../src/composition/auth.ts';
import { workflowStore } from '../src/composition/workflows.ts';
import { publishWorkflowDefinition } from '../src/composition/workflow-publishing.ts';

// A workspace with something in every view of the review console, made through the public API of a
// running local stack (the workflow is published as `paperflow-admin workflows publish` does): for
// `npm run console:screenshots` and `npm run bench -- console`. The stack must run with
// PAPERFLOW_ALLOW_PRIVATE_URLS=true so that its webhooks may reach the receiver here on loopback.

const corpus = new URL('../../shared/corpus/invoice2data/', import.meta.url);

export interface ConsoleDemo {
  apiKey: string;
  extractionIds: string[];
  runId: string;
  close(): Promise<void>;
}

export async function seedConsoleDemo(apiUrl: string, workspaceId = 'ws_console_demo'): Promise<ConsoleDemo> {
  await workspaceStore().ensure({ id: workspaceId, name: workspaceId, createdAt: new Date().toISOString() });
  const { secret: apiKey } = await apiKeyService().create({ workspaceId, name: 'console demo', scopes: ['*'] });
  const api = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${apiUrl}${path}`, { ...init, headers: { authorization: `api-key ${apiKey}`, ...init.headers } });
    const body = (await response.json()) as any;
    if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${JSON.stringify(body)}`);
    return body;
  };
  const json = (method: string, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  // It answers with a body, as most receivers do: the console shows an attempt's first 4 KB of it.
  const receiver: Server = createServer((request, response) =>
    request.resume().on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}')),
  );
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  await api('/event-subscriptions', json('POST', { name: 'demo receiver', endpointUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, eventTypes: ['document-insights.extraction.completed'] }));

  const extractionIds: string[] = [];
  for (const [name, labels] of [['AmazonWebServices.pdf', { customer: 'aws' }], ['AzureInterior.pdf', { customer: 'azure' }]] as const) {
    const form = new FormData();
    form.append('labels', JSON.stringify(labels));
    form.append('file', new Blob([await readFile(new URL(name, corpus))], { type: 'application/pdf' }), name);
    extractionIds.push((await api('/document-insights/extractions/upload', { method: 'POST', body: form })).id);
  }
  for (const id of extractionIds) await until(async () => ['COMPLETED', 'FAILED', 'REJECTED'].includes((await api(`/document-insights/extractions/${id}`)).status));
  const second = await api(`/document-insights/extractions/${extractionIds[1]}`);
  const total = second.output?.fields.find((field: { name: string }) => field.name === 'total_amount');
  await api(`/document-insights/extractions/${extractionIds[1]}/feedback`, json('POST', { type: 'ERROR', message: 'Total includes the deposit', ...(total ? { fieldId: total.id } : {}) }));

  const definition = {
    id: 'wf_invoice_review',
    name: 'Invoice review',
    steps: [
      { id: 'normalise', type: 'transform', with: { amount: '{{ body.amount }}', currency: 'EUR' } },
      { id: 'score', type: 'transform', with: { risk: '{{ body.amount > 1000 ? "high" : "low" }}' } },
      { id: 'decide', type: 'transform', needs: ['normalise', 'score'], with: { approve: '{{ steps.score.output.risk = "low" }}' } },
      { id: 'notify', type: 'transform', needs: ['decide'], with: { message: 'Decision recorded' } },
    ],
  };
  const published = await publishWorkflowDefinition(workspaceId, JSON.stringify(definition), 'json');
  if (!published.ok) throw new Error(`The demo workflow does not publish: ${JSON.stringify(published.problems)}`);
  const run = await api(`/workflows/${published.workflowId}/runs`, json('POST', { amount: 420 }));
  await until(async () => (await api(`/workflow-runs/${run.id}`)).status !== 'PROCESSING');
  // The completed events' deliveries settle on their own schedule (the outbox drain).
  await until(async () => (await api('/events')).data.some((event: { deliverySummary: { succeeded: number } }) => event.deliverySummary.succeeded > 0), 60_000);

  return {
    apiKey,
    extractionIds,
    runId: run.id,
    close: () => new Promise<void>((resolve) => receiver.close(() => resolve())),
  };
}

async function until(condition: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Not reached within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
