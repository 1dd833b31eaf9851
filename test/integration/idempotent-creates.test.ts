import { randomBytes, randomUUID } from 'node:crypto';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyService, workspaceStore } from '../../src/composition/auth.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { publishDefinition } from '../support/workflow-runs.ts';
import { sampleCsv, sampleText } from '../support/sample-files.ts';

// Issue 28 item 4 over HTTP: every create takes an Idempotency-Key; a repeat of the same request
// replays the first answer (status, body, Idempotent-Replayed: true) and creates nothing, a different
// request with the key is refused, concurrent requests with one key create one object, and keys are
// per workspace.

let stack: StackUnderTest;

beforeAll(async () => {
  stack = await startStackUnderTest();
});

afterAll(async () => {
  await stack?.stop();
});

/** A fresh workspace with a key of every scope, so that its lists and its bucket prefix start empty. */
async function freshWorkspace(): Promise<{ workspaceId: string; apiKey: string }> {
  const workspaceId = `ws_idem${randomBytes(6).toString('hex')}`;
  await workspaceStore().ensure({ id: workspaceId, name: workspaceId, createdAt: new Date().toISOString() });
  const apiKey = (await apiKeyService().create({ workspaceId, name: 'idempotency', scopes: ['*'] })).secret;
  return { workspaceId, apiKey };
}

interface Answer {
  status: number;
  body: any;
  replayed: string | null;
  requestId: string | null;
  retryAfter: string | null;
}

async function send(path: string, init: { apiKey: string; key?: string; json?: unknown; form?: () => FormData }): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (init.key !== undefined) headers['idempotency-key'] = init.key;
  let body: string | FormData | undefined;
  if (init.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(init.json);
  } else if (init.form) {
    // A new FormData per send: fetch draws a new boundary each time, as a retrying client's library does.
    body = init.form();
  }
  const response = await stack.api(path, { method: 'POST', headers, body, apiKey: init.apiKey });
  return {
    status: response.status,
    body: await response.json(),
    replayed: response.headers.get('idempotent-replayed'),
    requestId: response.headers.get('x-request-id'),
    retryAfter: response.headers.get('retry-after'),
  };
}

async function list(path: string, apiKey: string): Promise<{ totalItems: number; data: any[] }> {
  const response = await stack.api(path, { apiKey });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { data: any[]; pageInfo: { totalItems: number } };
  return { totalItems: body.pageInfo.totalItems, data: body.data };
}

async function storedObjectCount(workspaceId: string): Promise<number> {
  const listing = await new S3Client({ forcePathStyle: true }).send(
    new ListObjectsV2Command({ Bucket: stack.resources.filesBucketName, Prefix: `workspaces/${workspaceId}/` }),
  );
  return listing.KeyCount ?? 0;
}

function fileForm(content: string | Buffer, fileName = 'ledger.csv'): () => FormData {
  return () => {
    const form = new FormData();
    form.append('file', new Blob([content], { type: 'text/csv' }), fileName);
    return form;
  };
}

function uploadForm(content: string, labels: Record<string, string>): () => FormData {
  return () => {
    const form = new FormData();
    form.append('labels', JSON.stringify(labels));
    form.append('file', new Blob([content], { type: 'text/plain' }), 'letter.txt');
    return form;
  };
}

function subscriptionRequest(name: string) {
  return { name, endpointUrl: 'https://hooks.example.com/paperflow', eventTypes: ['document-insights.extraction.completed'] };
}

describe('a repeated create with the same Idempotency-Key', () => {
  it('POST /files (multipart): replays the stored file, with a new boundary, and stores nothing more', async () => {
    const { workspaceId, apiKey } = await freshWorkspace();
    const key = randomUUID();

    const first = await send('/files', { apiKey, key, form: fileForm(sampleCsv) });
    const again = await send('/files', { apiKey, key, form: fileForm(sampleCsv) });

    expect(first.status).toBe(201);
    expect(first.replayed).toBeNull();
    expect(again).toMatchObject({ status: 201, body: first.body, replayed: 'true' });
    expect(await storedObjectCount(workspaceId)).toBe(1);
  });

  it('POST /files (JSON upload session): replays the session with its signed form', async () => {
    const { apiKey } = await freshWorkspace();
    const key = randomUUID();
    const request = { fileName: 'large.pdf', size: 20_000_000, mimeType: 'application/pdf' };

    const first = await send('/files', { apiKey, key, json: request });
    const again = await send('/files', { apiKey, key, json: request });

    expect(first.status).toBe(201);
    expect(again).toMatchObject({ status: 201, body: first.body, replayed: 'true' });
  });

  it('POST /document-insights/extractions: replays the QUEUED extraction; the list holds one', async () => {
    const { apiKey } = await freshWorkspace();
    const file = await send('/files', { apiKey, form: fileForm(sampleCsv) });
    const key = randomUUID();
    const request = { document: { fileId: file.body.fileId }, labels: { order: 'A-1' } };

    const first = await send('/document-insights/extractions', { apiKey, key, json: request });
    const again = await send('/document-insights/extractions', { apiKey, key, json: request });

    expect(first.status).toBe(202);
    expect(again).toMatchObject({ status: 202, body: first.body, replayed: 'true' });
    const extractions = await list('/document-insights/extractions?labels[order]=A-1', apiKey);
    expect(extractions.totalItems).toBe(1);
    expect(extractions.data[0].id).toBe(first.body.id);
  });

  it('POST /document-insights/extractions/upload (multipart): replays the extraction; the list holds one', async () => {
    const { apiKey } = await freshWorkspace();
    const key = randomUUID();
    const form = uploadForm(sampleText, { batch: 'B-7' });

    const first = await send('/document-insights/extractions/upload', { apiKey, key, form });
    const again = await send('/document-insights/extractions/upload', { apiKey, key, form });

    expect(first.status).toBe(202);
    expect(again).toMatchObject({ status: 202, body: first.body, replayed: 'true' });
    expect((await list('/document-insights/extractions', apiKey)).totalItems).toBe(1);
  });

  it('POST /workflows/{workflowId}/runs: replays the started run; the list holds one', async () => {
    const { workspaceId, apiKey } = await freshWorkspace();
    const workflowId = await publishDefinition(workspaceId, [{ id: 'echo', type: 'transform', with: { greeting: 'Hello {{ body.name }}' } }]);
    const key = randomUUID();

    const first = await send(`/workflows/${workflowId}/runs`, { apiKey, key, json: { name: 'Ada' } });
    const again = await send(`/workflows/${workflowId}/runs`, { apiKey, key, json: { name: 'Ada' } });

    expect(first.status).toBe(202);
    expect(again).toMatchObject({ status: 202, body: first.body, replayed: 'true' });
    expect((await list(`/workflow-runs?workflowId=${workflowId}`, apiKey)).totalItems).toBe(1);
  });

  it('POST /event-subscriptions: replays the subscription with its signing secret; the list holds one', async () => {
    const { apiKey } = await freshWorkspace();
    const key = randomUUID();

    const first = await send('/event-subscriptions', { apiKey, key, json: subscriptionRequest('orders') });
    const again = await send('/event-subscriptions', { apiKey, key, json: subscriptionRequest('orders') });

    expect(first.status).toBe(201);
    expect(first.body.signingSecret).toMatch(/^whsec_/);
    expect(again).toMatchObject({ status: 201, body: first.body, replayed: 'true' });
    expect((await list('/event-subscriptions', apiKey)).totalItems).toBe(1);
  });

  it('replays a refusal (4xx) too, naming the replaying request in its requestId', async () => {
    const { apiKey } = await freshWorkspace();
    const key = randomUUID();
    const request = { document: { fileId: `file_${'0'.repeat(26)}` } };

    const first = await send('/document-insights/extractions', { apiKey, key, json: request });
    const again = await send('/document-insights/extractions', { apiKey, key, json: request });

    expect(first.status).toBe(422);
    expect(again).toMatchObject({ status: 422, replayed: 'true' });
    expect(again.body.error).toEqual({ ...first.body.error, requestId: again.requestId });
    expect(again.requestId).not.toBe(first.requestId);
  });

  it('without a key, creates again', async () => {
    const { apiKey } = await freshWorkspace();

    await send('/event-subscriptions', { apiKey, json: subscriptionRequest('orders') });
    await send('/event-subscriptions', { apiKey, json: subscriptionRequest('orders') });

    expect((await list('/event-subscriptions', apiKey)).totalItems).toBe(2);
  });
});

describe('the same Idempotency-Key with a different request', () => {
  it('is refused with 422 VALIDATION_FAILED naming the header, and creates nothing', async () => {
    const { apiKey } = await freshWorkspace();
    const key = randomUUID();
    await send('/event-subscriptions', { apiKey, key, json: subscriptionRequest('orders') });

    const otherBody = await send('/event-subscriptions', { apiKey, key, json: subscriptionRequest('invoices') });
    const otherOperation = await send('/files', { apiKey, key, json: { fileName: 'a.pdf', size: 10, mimeType: 'application/pdf' } });

    for (const refused of [otherBody, otherOperation]) {
      expect(refused.status).toBe(422);
      expect(refused.replayed).toBeNull();
      expect(refused.body.error).toMatchObject({ code: 'VALIDATION_FAILED', retryable: false });
      expect(refused.body.error.details).toEqual([{ field: 'Idempotency-Key', issue: expect.stringContaining('different request') }]);
    }
    expect((await list('/event-subscriptions', apiKey)).totalItems).toBe(1);
  });

  it('is refused for a form whose file differs', async () => {
    const { workspaceId, apiKey } = await freshWorkspace();
    const key = randomUUID();
    await send('/files', { apiKey, key, form: fileForm(sampleCsv) });

    const refused = await send('/files', { apiKey, key, form: fileForm(`${sampleCsv}INV-3,2024-01-10,5.00\n`) });

    expect(refused.status).toBe(422);
    expect(refused.body.error.details[0].field).toBe('Idempotency-Key');
    expect(await storedObjectCount(workspaceId)).toBe(1);
  });
});

describe('concurrent requests with one Idempotency-Key', () => {
  // Each answer is the one creation (first or replayed) or, when the first outlasted the wait, a retryable 409.
  function expectOneCreation(answers: Answer[], createdStatus: number) {
    const created = answers.filter((answer) => answer.status === createdStatus);
    const waiting = answers.filter((answer) => answer.status !== createdStatus);
    expect(created.filter((answer) => answer.replayed === null)).toHaveLength(1);
    for (const answer of created) expect(answer.body).toEqual(created[0]!.body);
    for (const answer of waiting) {
      expect(answer.status).toBe(409);
      expect(answer.body.error).toMatchObject({ code: 'CONFLICT', retryable: true });
      expect(answer.retryAfter).toBe('1');
    }
  }

  it('create one subscription', async () => {
    const { apiKey } = await freshWorkspace();
    const key = randomUUID();

    const answers = await Promise.all(Array.from({ length: 6 }, () => send('/event-subscriptions', { apiKey, key, json: subscriptionRequest('orders') })));

    expectOneCreation(answers, 201);
    expect((await list('/event-subscriptions', apiKey)).totalItems).toBe(1);
  });

  it('streaming the same upload create one file', async () => {
    const { workspaceId, apiKey } = await freshWorkspace();
    const key = randomUUID();
    const content = Buffer.concat([Buffer.from(sampleCsv), Buffer.alloc(4 * 1024 * 1024, 'INV-9,2024-02-01,1.00\n')]);

    const answers = await Promise.all(Array.from({ length: 3 }, () => send('/files', { apiKey, key, form: fileForm(content) })));

    expectOneCreation(answers, 201);
    expect(await storedObjectCount(workspaceId)).toBe(1);
  });
});

describe('Idempotency-Key scope and form', () => {
  it('keys are per workspace: the same key creates in each', async () => {
    const first = await freshWorkspace();
    const second = await freshWorkspace();
    const key = randomUUID();

    const inFirst = await send('/event-subscriptions', { apiKey: first.apiKey, key, json: subscriptionRequest('orders') });
    const inSecond = await send('/event-subscriptions', { apiKey: second.apiKey, key, json: subscriptionRequest('orders') });

    expect(inFirst.status).toBe(201);
    expect(inSecond.status).toBe(201);
    expect(inSecond.replayed).toBeNull();
    expect(inSecond.body.id).not.toBe(inFirst.body.id);
    expect((await list('/event-subscriptions', second.apiKey)).totalItems).toBe(1);
  });

  it.each([
    ['256 characters', 'k'.repeat(256)],
    ['a character outside printable ASCII', 'order-\u00e9'],
  ])('a key of %s is 400 INVALID_REQUEST and creates nothing', async (_case, key) => {
    const { apiKey } = await freshWorkspace();

    const refused = await send('/event-subscriptions', { apiKey, key, json: subscriptionRequest('orders') });

    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('Idempotency-Key') });
    expect((await list('/event-subscriptions', apiKey)).totalItems).toBe(0);
  });

  it('a key of 255 printable characters is accepted', async () => {
    const { apiKey } = await freshWorkspace();

    const created = await send('/event-subscriptions', { apiKey, key: `${'~'.repeat(127)} ${'!'.repeat(127)}`, json: subscriptionRequest('orders') });

    expect(created.status).toBe(201);
  });
});
