import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyService, workspaceStore } from '../../src/composition/auth.ts';
import { adminCliFor } from '../support/admin-cli-process.ts';
import { ExtractionClient } from '../support/extraction-client.ts';
import { invoicePdf } from '../support/extraction-documents.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { startWebhookReceiver, type ReceivedWebhook, type RunningWebhookReceiver } from '../support/webhook-receiver.ts';
import { publishDefinition, WorkflowRunClient } from '../support/workflow-runs.ts';

// Value correction over HTTP against the embedded stack: field feedback with correctedValue is checked
// against the field's type, shows beside the extracted value, and a later extraction of the same
// document (here a workflow run's document_insights step) carries it in its event and its step output;
// paperflow-admin feedback export writes the corrected document as a corpus-format labelled set.

const variables = {
  PAPERFLOW_ALLOW_PRIVATE_URLS: 'true',
  PAPERFLOW_LOCAL_RETRY_INTERVAL_MS: '10',
  PAPERFLOW_EVENT_OUTBOX_DRAIN_INTERVAL_SECONDS: '1',
  PAPERFLOW_EVENT_OUTBOX_GRACE_SECONDS: '1',
};
const workspaceId = 'ws_corrections';

let stack: StackUnderTest;
let receiver: RunningWebhookReceiver;
let extractions: ExtractionClient;
let runs: WorkflowRunClient;
let keyId: string;
let folder: string;
const received: ReceivedWebhook[] = [];

beforeAll(async () => {
  Object.assign(process.env, variables);
  stack = await startStackUnderTest();
  await workspaceStore().ensure({ id: workspaceId, name: workspaceId, createdAt: new Date().toISOString() });
  const key = await apiKeyService().create({ workspaceId, name: 'reviewer', scopes: ['*'], rateLimit: { requestsPerSecond: 5_000, burst: 5_000 } });
  keyId = key.record.keyId;
  extractions = new ExtractionClient(stack, key.secret);
  runs = new WorkflowRunClient(stack, key.secret);
  receiver = await startWebhookReceiver((request, response) => {
    received.push(request);
    response.writeHead(204).end();
  });
  const subscription = await extractions.json('/event-subscriptions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'corrections', endpointUrl: `${receiver.url}/hooks`, eventTypes: ['document-insights.extraction.completed'] }),
  });
  if (subscription.status !== 201) throw new Error(`subscription not created: ${JSON.stringify(subscription.body)}`);
  folder = await mkdtemp(join(tmpdir(), 'paperflow-feedback-export-'));
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
  await rm(folder, { recursive: true, force: true });
  for (const name of Object.keys(variables)) delete process.env[name];
});

const admin = adminCliFor(() => stack.dataDir);

function feedback(extractionId: string, body: unknown) {
  return extractions.json(`/document-insights/extractions/${extractionId}/feedback`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const fieldNamed = (extraction: any, name: string) => extraction.output.fields.find((field: { name: string }) => field.name === name);

async function completedEventOf(extractionId: string): Promise<any> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const event = received.map((request) => JSON.parse(request.body)).find((body) => body.data?.extractionId === extractionId);
    if (event) return event;
    if (Date.now() > deadline) throw new Error(`no completed event of ${extractionId} was delivered`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('value correction', () => {
  let document: Buffer;
  let first: any;

  beforeAll(async () => {
    document = await invoicePdf({ invoiceNumber: 'COR-0001' });
    const created = await extractions.upload(document, 'invoice-cor.pdf');
    first = await extractions.waitForTerminal(created.body.id, 60_000);
    expect(first.status).toBe('COMPLETED');
  }, 90_000);

  it('refuses a value that does not fit the field\'s type with VALIDATION_FAILED and details, and records nothing', async () => {
    const total = fieldNamed(first, 'total_amount');
    const issueDate = fieldNamed(first, 'issue_date');

    const notANumber = await feedback(first.id, { message: 'wrong total', fieldId: total.id, correctedValue: '1.190,00 EUR' });
    const noSuchDay = await feedback(first.id, { message: 'wrong date', fieldId: issueDate.id, correctedValue: '2024-02-30' });
    const noField = await feedback(first.id, { message: 'wrong', correctedValue: 'x' });
    const after = await extractions.get(first.id);

    expect(notANumber.status).toBe(422);
    expect(notANumber.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field: 'correctedValue', issue: expect.stringContaining('must be a number') }] });
    expect(noSuchDay.status).toBe(422);
    expect(noSuchDay.body.error.details).toEqual([{ field: 'correctedValue', issue: expect.stringContaining('not a valid date') }]);
    expect(noField.status).toBe(422);
    expect(noField.body.error.details).toEqual([{ field: 'correctedValue', issue: expect.stringContaining('fieldId') }]);
    expect(fieldNamed(after.body, 'total_amount')).not.toHaveProperty('correctedValue');
    expect(after.body.reviewRequired).toBeUndefined();
  });

  it('refuses a table row with an unknown column or a cell of the wrong type, naming each', async () => {
    const lineItems = fieldNamed(first, 'line_items');

    const refused = await feedback(first.id, {
      message: 'rows',
      fieldId: lineItems.id,
      correctedValue: [{ description: 'Consulting services', amount: 1000 }, { description: 'Travel', amount: 'ninety', colour: 'red' }],
    });

    expect(refused.status).toBe(422);
    expect(refused.body.error.details).toEqual([
      { field: 'correctedValue[1].amount', issue: expect.stringContaining('must be a number') },
      { field: 'correctedValue[1].colour', issue: expect.stringContaining('is not a column of line_items') },
    ]);
  });

  it('shows the corrected value beside the extracted one, with when and by which key; a later run\'s step and event carry it; the export labels it', async () => {
    const invoiceNumber = fieldNamed(first, 'invoice_number');
    const iban = fieldNamed(first, 'iban');

    const corrected = await feedback(first.id, { message: 'The number has a suffix', fieldId: invoiceNumber.id, correctedValue: 'COR-0001-A' });
    // Normalized as the engine writes an IBAN: no spaces.
    const ibanCorrected = await feedback(first.id, { message: 'IBAN', type: 'INFO', fieldId: iban.id, correctedValue: 'GB82 WEST 1234 5698 7654 32' });
    const read = await extractions.get(first.id);

    expect(corrected.status).toBe(201);
    expect(corrected.body).toMatchObject({ type: 'ERROR', fieldId: invoiceNumber.id, correctedValue: 'COR-0001-A' });
    expect(ibanCorrected.body.correctedValue).toBe('GB82WEST12345698765432');
    expect(read.body.reviewRequired).toBe(true);
    expect(fieldNamed(read.body, 'invoice_number')).toMatchObject({
      value: 'COR-0001',
      correctedValue: 'COR-0001-A',
      correction: { correctedBy: keyId, feedbackId: corrected.body.id, extractionId: first.id, correctedAt: corrected.body.createdAt },
    });
    expect(fieldNamed(read.body, 'total_amount')).not.toHaveProperty('correction');

    // A later run extracts the same document again (the file the first extraction stored).
    const workflowId = await publishDefinition(workspaceId, [
      { id: 'read', type: 'document_insights', with: { fileId: '{{ body.fileId }}' } },
      { id: 'book', type: 'transform', needs: ['read'], with: { number: '{{ steps.read.output.values.invoice_number }}' } },
    ]);
    const run = await runs.run(workflowId, { fileId: first.document.fileId }, 90_000);
    const step = run.steps[0];
    const later = await extractions.get(step.output.extractionId);
    const event = await completedEventOf(step.output.extractionId);

    expect(run.status).toBe('COMPLETED');
    expect(step.output.extractionId).not.toBe(first.id);
    expect(step.output.values.invoice_number).toBe('COR-0001-A');
    expect(step.output.values.iban).toBe('GB82WEST12345698765432');
    expect(step.output.fields.find((field: { name: string }) => field.name === 'invoice_number')).toMatchObject({ value: 'COR-0001', correctedValue: 'COR-0001-A' });
    expect(run.steps[1].output).toEqual({ number: 'COR-0001-A' });
    expect(fieldNamed(later.body, 'invoice_number')).toMatchObject({ value: 'COR-0001', correctedValue: 'COR-0001-A', correction: { extractionId: first.id, correctedBy: keyId } });
    expect(event.data.output.fields.find((field: { name: string }) => field.name === 'invoice_number')).toMatchObject({ value: 'COR-0001', correctedValue: 'COR-0001-A' });
    // The first extraction's own event was recorded before the correction: it stays as it was sent.
    const firstEvent = await completedEventOf(first.id);
    expect(firstEvent.data.output.fields.find((field: { name: string }) => field.name === 'invoice_number')).not.toHaveProperty('correctedValue');

    const exported = await admin('feedback', 'export', '--workspace', workspaceId, '--out', folder);
    const files = (await readdir(join(folder, 'invoice'))).sort();
    const documentName = files.find((name) => name.endsWith('.pdf'))!;
    const labels = JSON.parse(await readFile(join(folder, 'invoice', `${documentName}.expected.json`), 'utf8'));

    expect(JSON.parse(exported.stdout)).toMatchObject({ workspaceId, documents: 1, skipped: 0 });
    expect(files).toEqual([documentName, `${documentName}.expected.json`]);
    expect(documentName).toMatch(/^[0-9a-f]{12}-invoice-cor\.pdf$/);
    expect(await readFile(join(folder, 'invoice', documentName))).toEqual(document);
    expect(labels).toMatchObject({ document: documentName, fields: { doc_type: 'invoice', invoice_number: 'COR-0001-A', iban: 'GB82WEST12345698765432' } });
    expect(Object.keys(labels.fields).sort()).toEqual(['doc_type', 'iban', 'invoice_number']);
  }, 150_000);
});
