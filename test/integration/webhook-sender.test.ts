import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebhookSender, webhookTimeoutMsFrom, type WebhookRequest } from '../../src/webhooks/webhook-sender.ts';

let server: Server;
let port: number;
let answer: (request: IncomingMessage, response: ServerResponse) => void;
let received: { headers: IncomingMessage['headers']; body: string; method: string }[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString(), method: request.method ?? '' });
      answer(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterEach(() => {
  received = [];
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const local = () => ({ allowHttp: true, allowLoopback: true });
const strict = () => ({ allowHttp: false, allowLoopback: false });
const body = JSON.stringify({ eventId: 'evt_1', eventType: 'document-insights.extraction.completed', occurredAt: '2026-03-01T10:00:00.000Z', apiVersion: 'v1', data: {} });

function requestTo(path: string, overrides: Partial<WebhookRequest> = {}): WebhookRequest {
  return { endpointUrl: `http://127.0.0.1:${port}${path}`, body, eventId: 'evt_1', eventType: 'document-insights.extraction.completed', deliveryId: 'dlv_1', attempt: 2, ...overrides };
}

const sign = (signedBody: string, eventId: string, timestamp: number) => ({
  'X-Paperflow-Signature': `t=${timestamp},v1=${Buffer.from(signedBody).length}`,
  'webhook-id': eventId,
  'webhook-timestamp': String(timestamp),
  'webhook-signature': 'v1,c2lnbmF0dXJl',
});

describe('WebhookSender', () => {
  const sender = new WebhookSender({ timeoutMs: 2_000, policy: local, now: () => new Date('2026-03-01T10:00:05.000Z') });

  it('POSTs the body with the delivery headers and the signature, and records them redacted', async () => {
    answer = (_request, response) => response.writeHead(204).end();

    const result = await sender.send(requestTo('/hooks'), sign);

    expect(received[0]!.method).toBe('POST');
    expect(received[0]!.body).toBe(body);
    expect(received[0]!.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'Paperflow-Webhooks/1',
      'x-paperflow-event-id': 'evt_1',
      'x-paperflow-event-type': 'document-insights.extraction.completed',
      'x-paperflow-delivery-id': 'dlv_1',
      'x-paperflow-attempt': '2',
      'x-paperflow-signature': `t=1772359205,v1=${Buffer.byteLength(body)}`,
      'webhook-id': 'evt_1',
      'webhook-timestamp': '1772359205',
      'webhook-signature': 'v1,c2lnbmF0dXJl',
    });
    expect(result).toMatchObject({ outcome: 'succeeded', responseStatus: 204, error: null, startedAt: '2026-03-01T10:00:05.000Z' });
    expect(result.requestHeaders).toMatchObject({ 'X-Paperflow-Signature': '[redacted]', 'webhook-signature': '[redacted]', 'webhook-id': 'evt_1', 'X-Paperflow-Attempt': '2' });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('counts any 2xx as success and anything else as a failure with its kind', async () => {
    answer = (request, response) => {
      const status = Number(new URL(request.url!, 'http://x').searchParams.get('status'));
      if (status === 301) response.writeHead(301, { location: 'http://127.0.0.1:1/elsewhere' }).end();
      else response.writeHead(status).end(`status ${status}`);
    };

    const outcomes = await Promise.all([200, 299, 301, 404, 500].map((status) => sender.send(requestTo(`/?status=${status}`), sign)));

    expect(outcomes.map(({ outcome, responseStatus, error }) => [responseStatus, outcome, error?.kind ?? null])).toEqual([
      [200, 'succeeded', null],
      [299, 'succeeded', null],
      [301, 'failed', 'redirect'],
      [404, 'failed', 'http status'],
      [500, 'failed', 'http status'],
    ]);
    expect(outcomes[4]!.responseBody).toBe('status 500');
    expect(received).toHaveLength(5);
  });

  it('keeps the first 4 KB of a long answer and still counts the 2xx', async () => {
    answer = (_request, response) => response.writeHead(200).end('x'.repeat(10_000));

    const result = await sender.send(requestTo('/long'), sign);

    expect(result.outcome).toBe('succeeded');
    expect(result.responseBody).toBe('x'.repeat(4096));
  });

  it('records a name resolving to a private address, a metadata literal and an unknown name as failed attempts', async () => {
    const guarded = new WebhookSender({
      timeoutMs: 2_000,
      policy: strict,
      resolveHost: async (hostname) => {
        if (hostname === 'internal.example') return [{ address: '10.0.0.5', family: 4 }];
        throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      },
    });

    const privateName = await guarded.send(requestTo('/', { endpointUrl: 'https://internal.example/hooks' }), sign);
    const metadata = await guarded.send(requestTo('/', { endpointUrl: 'https://169.254.169.254/latest' }), sign);
    const unknown = await guarded.send(requestTo('/', { endpointUrl: 'https://nowhere.example/hooks' }), sign);

    expect(privateName).toMatchObject({ outcome: 'failed', responseStatus: null, responseBody: null, error: { kind: 'blocked address' } });
    expect(metadata).toMatchObject({ outcome: 'failed', error: { kind: 'blocked address' } });
    expect(unknown).toMatchObject({ outcome: 'failed', error: { kind: 'dns' } });
  });

  it('records a loopback endpoint as a blocked address unless private URLs are allowed', async () => {
    const guarded = new WebhookSender({ timeoutMs: 2_000, policy: strict, resolveHost: async () => [{ address: '127.0.0.1', family: 4 }] });

    const result = await guarded.send(requestTo('/hooks', { endpointUrl: `https://hooks.example:${port}/hooks` }), sign);

    expect(result).toMatchObject({ outcome: 'failed', error: { kind: 'blocked address' } });
    expect(received).toHaveLength(0);
  });

  it('records a timeout and a refused connection', async () => {
    answer = () => undefined; // never answers
    const impatient = new WebhookSender({ timeoutMs: 200, policy: local });

    const timedOut = await impatient.send(requestTo('/silent'), sign);
    const refused = await impatient.send(requestTo('/', { endpointUrl: 'http://127.0.0.1:1/hooks' }), sign);

    expect(timedOut).toMatchObject({ outcome: 'failed', error: { kind: 'timeout' } });
    expect(refused).toMatchObject({ outcome: 'failed', error: { kind: 'connection refused' } });
  });
});

describe('webhookTimeoutMsFrom', () => {
  it('defaults to 10 s and reads seconds', () => {
    expect(webhookTimeoutMsFrom(undefined)).toBe(10_000);
    expect(webhookTimeoutMsFrom('2')).toBe(2_000);
    expect(webhookTimeoutMsFrom('0.5')).toBe(500);
  });

  it.each(['0', '-1', 'ten', '1s'])('refuses %j', (raw) => {
    expect(() => webhookTimeoutMsFrom(raw)).toThrow(/PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS must be a positive number/);
  });
});
