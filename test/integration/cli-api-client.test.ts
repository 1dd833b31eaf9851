import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { multipartRequest, PaperflowApiClient } from '../../src/cli/api-client.ts';
import { ApiError, ApiUnreachableError } from '../../src/cli/cli-errors.ts';
import { multipartBody } from '../../src/cli/multipart-body.ts';
import { refusedConnectionUrl, startWebhookReceiver, type ReceivedWebhook, type RunningWebhookReceiver } from '../support/webhook-receiver.ts';

// The CLI's client (the typed client with its retries) against a loopback HTTP server playing the API:
// what it sends, and how it reads answers.

let server: RunningWebhookReceiver | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

type Answer = { status: number; headers?: Record<string, string>; body?: string };

async function apiAnswering(answers: Answer[]): Promise<{ client: PaperflowApiClient; requests: ReceivedWebhook[]; waits: number[] }> {
  const requests: ReceivedWebhook[] = [];
  const waits: number[] = [];
  server = await startWebhookReceiver((request, response) => {
    requests.push(request);
    const answer = answers[Math.min(requests.length - 1, answers.length - 1)]!;
    response.writeHead(answer.status, answer.headers ?? {}).end(answer.body ?? '');
  });
  const client = new PaperflowApiClient(
    { apiUrl: `${server.url}/api/public/v1`, apiKey: 'pf_live_unittestkey000000' },
    { rateLimitRetries: 2, sleep: async (milliseconds) => void waits.push(milliseconds) },
  );
  return { client, requests, waits };
}

const json = { 'content-type': 'application/json' };

describe('PaperflowApiClient', () => {
  it('sends a create with an Idempotency-Key, the same on every try of it, and other requests without one', async () => {
    const { client, requests } = await apiAnswering([{ status: 429, headers: { 'retry-after': '0' }, body: 'slow down' }, { status: 201, headers: json, body: '{"id":"sub_1"}' }]);

    const subscription = { name: 'n', endpointUrl: 'https://receiver.test/hooks', eventTypes: ['workflow.run.completed' as const] };
    await client.create((api, header) => api.POST('/event-subscriptions', { params: { header }, body: subscription }));
    await client.call((api) => api.POST('/event-subscriptions/{subscriptionId}/recover', { params: { path: { subscriptionId: 'sub_1' } }, body: { since: '2026-01-01T00:00:00Z' } }));
    await client.create((api, header) => api.POST('/event-subscriptions', { params: { header }, body: subscription }));

    const keys = requests.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).toBeUndefined();
    // A new create is a new operation: a new key.
    expect(keys[3]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[3]).not.toBe(keys[0]);
  });

  it('sends a create again, with its key, when the connection broke before the answer; another request fails at once', async () => {
    let dropped = 0;
    const requests: ReceivedWebhook[] = [];
    server = await startWebhookReceiver((request, response) => {
      requests.push(request);
      // The first request of each kind is received and its connection cut before any answer.
      if (requests.length === 1 || requests.length === 3) {
        dropped += 1;
        response.socket?.destroy();
        return;
      }
      response.writeHead(201, json).end('{"id":"run_1"}');
    });
    const waits: number[] = [];
    const client = new PaperflowApiClient({ apiUrl: `${server.url}/api/public/v1`, apiKey: 'pf_live_unittestkey000000' }, { sleep: async (milliseconds) => void waits.push(milliseconds) });

    const created = await client.create((api, header) => api.POST('/workflows/{workflowId}/runs', { params: { path: { workflowId: 'wf_1' }, header }, body: { a: 1 } }));
    const other = await client.call((api) => api.POST('/workflow-runs/{runId}/redrive', { params: { path: { runId: 'run_1' } } })).catch((error: unknown) => error);

    expect(created).toEqual({ id: 'run_1' });
    expect(requests[1]!.headers['idempotency-key']).toBe(requests[0]!.headers['idempotency-key']);
    expect(waits).toEqual([1000]);
    expect(other).toBeInstanceOf(ApiUnreachableError);
    expect(dropped).toBe(2);
    expect(requests).toHaveLength(3);
  });

  it('sends the key, the query with labels as the API reads them, and JSON, and returns the body', async () => {
    const { client, requests } = await apiAnswering([
      { status: 200, headers: json, body: '{"data":[],"pageInfo":{"page":0,"size":20,"totalItems":0,"totalPages":0}}' },
      { status: 202, headers: { ...json, 'x-request-id': 'req-1' }, body: '{"id":"ext_1"}' },
    ]);

    const listed = await client.call((api) => api.GET('/document-insights/extractions', { params: { query: { page: 0, status: undefined, labels: { 'a b': 'c' } } } }));
    const created = await client.create((api, header) => api.POST('/document-insights/extractions', { params: { header }, body: { document: { url: 'https://x.test/a.pdf' } } }));

    expect(listed.pageInfo.totalItems).toBe(0);
    expect(created).toEqual({ id: 'ext_1' });
    expect(requests[0]).toMatchObject({ headers: { authorization: 'api-key pf_live_unittestkey000000' } });
    expect(new URL(requests[0]!.path, 'http://x').searchParams).toEqual(new URLSearchParams({ page: '0', 'labels[a b]': 'c' }));
    expect(requests[0]!.path.startsWith('/api/public/v1/document-insights/extractions?')).toBe(true);
    expect(requests[1]).toMatchObject({
      path: '/api/public/v1/document-insights/extractions',
      headers: { authorization: 'api-key pf_live_unittestkey000000', 'content-type': 'application/json' },
      body: '{"document":{"url":"https://x.test/a.pdf"}}',
    });
  });

  it('turns the error envelope into an ApiError with code, message, request id and details', async () => {
    const envelope = { error: { code: 'VALIDATION_FAILED', message: 'labels.a is too long', requestId: 'req-2', retryable: false, details: [{ field: 'labels.a', issue: 'too long' }] } };
    const { client } = await apiAnswering([{ status: 422, headers: { ...json, 'x-request-id': 'req-2' }, body: JSON.stringify(envelope) }]);

    const refused = await client.call((api) => api.GET('/workflow-runs/{runId}', { params: { path: { runId: 'run_1' } } })).catch((error: unknown) => error);

    expect(refused).toBeInstanceOf(ApiError);
    expect(refused).toMatchObject({ status: 422, code: 'VALIDATION_FAILED', message: 'labels.a is too long', requestId: 'req-2', details: [{ field: 'labels.a', issue: 'too long' }] });
  });

  it('waits out a 429 for its Retry-After and sends the request again', async () => {
    const { client, requests, waits } = await apiAnswering([
      { status: 429, headers: { 'retry-after': '3' }, body: 'Too Many Requests' },
      { status: 200, headers: json, body: '{"ok":true}' },
    ]);

    const answer = await client.call((api) => api.GET('/events'));

    expect(answer).toEqual({ ok: true });
    expect(waits).toEqual([3000]);
    expect(requests).toHaveLength(2);
  });

  it('reports the edge\'s plain-text 429 as RATE_LIMITED once the retries are spent', async () => {
    const { client, waits } = await apiAnswering([{ status: 429, headers: { 'retry-after': '1', 'x-request-id': 'req-3' }, body: 'Too Many Requests\n' }]);

    const refused = await client.call((api) => api.GET('/events')).catch((error: unknown) => error);

    expect(refused).toMatchObject({ status: 429, code: 'RATE_LIMITED', message: 'Too Many Requests', requestId: 'req-3' });
    expect(waits).toEqual([1000, 1000]);
  });

  it('says the API cannot be reached when nothing listens', async () => {
    const client = new PaperflowApiClient({ apiUrl: await refusedConnectionUrl('/api/public/v1'), apiKey: 'pf_live_unittestkey000000' });

    await expect(client.call((api) => api.GET('/events'))).rejects.toThrow(ApiUnreachableError);
  });

  describe('a multipart upload', () => {
    let folder: string;

    afterEach(async () => {
      await rm(folder, { recursive: true, force: true });
    });

    it('streams the file with a Content-Length, a JSON part typed as JSON, and reports progress up to the whole', async () => {
      folder = await mkdtemp(join(tmpdir(), 'paperflow-cli-upload-'));
      const path = join(folder, 'scan "1".pdf');
      const content = Buffer.alloc(200_000, 7);
      await writeFile(path, content);
      const { client, requests } = await apiAnswering([{ status: 202, headers: json, body: '{}' }]);
      const body = multipartBody([
        { name: 'file', filePath: path, fileName: 'scan "1".pdf', size: content.length },
        { name: 'labels', text: '{"a":"b"}', contentType: 'application/json' },
      ]);
      const progress: number[] = [];

      await client.create((api, header) => api.POST('/document-insights/extractions/upload', { ...multipartRequest(body, (sent, total) => progress.push(sent / total)), params: { header } }));

      const received = requests[0]!;
      expect(Number(received.headers['content-length'])).toBe(body.contentLength);
      expect(Buffer.byteLength(received.body, 'latin1')).toBe(body.contentLength);
      expect(received.body).toContain('Content-Disposition: form-data; name="file"; filename="scan %221%22.pdf"\r\nContent-Type: application/octet-stream\r\n\r\n');
      expect(received.body).toContain('Content-Disposition: form-data; name="labels"\r\nContent-Type: application/json\r\n\r\n{"a":"b"}\r\n');
      expect(progress.at(-1)).toBe(1);
      expect(progress.length).toBeGreaterThan(2);
    });

    it('sends a file part whose bytes are in memory with its file name and type, counted in the Content-Length', async () => {
      const { client, requests } = await apiAnswering([{ status: 202, headers: json, body: '{}' }]);
      const body = multipartBody([{ name: 'file', fileName: 'sample.txt', content: Buffer.from('Invoice PF-1\n'), contentType: 'text/plain' }]);

      await client.create((api, header) => api.POST('/workflows/{workflowId}/runs', { ...multipartRequest(body), params: { path: { workflowId: 'wf_1' }, header } }));

      const received = requests[0]!;
      expect(Number(received.headers['content-length'])).toBe(body.contentLength);
      expect(Buffer.byteLength(received.body, 'latin1')).toBe(body.contentLength);
      expect(received.body).toContain('Content-Disposition: form-data; name="file"; filename="sample.txt"\r\nContent-Type: text/plain\r\n\r\nInvoice PF-1\n\r\n');
    });
  });
});
