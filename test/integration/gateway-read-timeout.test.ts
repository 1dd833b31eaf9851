import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bootstrapApiKey, startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';

// A client that sends its headers and then stalls its body must not hold a connection (and the
// handler waiting for the body) forever: past PAPERFLOW_REQUEST_READ_TIMEOUT_SECONDS the local gateway
// answers 400 INVALID_REQUEST in the envelope (the spec has no code for 408) and closes the
// connection, while other clients are served as usual.

const readTimeoutSeconds = 2;
let stack: StackUnderTest;

beforeAll(async () => {
  process.env.PAPERFLOW_REQUEST_READ_TIMEOUT_SECONDS = String(readTimeoutSeconds);
  stack = await startStackUnderTest();
});

afterAll(async () => {
  await stack?.stop();
  delete process.env.PAPERFLOW_REQUEST_READ_TIMEOUT_SECONDS;
});

/** Sends `head` and the start of a body, never the rest; resolves with what the server answered and when. */
function stalledRequest(head: string, partialBody: string): { answered: Promise<{ raw: string; elapsedMs: number }>; closed: () => boolean } {
  let closed = false;
  const answered = new Promise<{ raw: string; elapsedMs: number }>((resolve, reject) => {
    const startedAt = Date.now();
    const socket = createConnection({ host: '127.0.0.1', port: stack.port }, () => socket.write(head + partialBody));
    let raw = '';
    socket.on('data', (chunk) => (raw += chunk.toString('latin1')));
    socket.on('close', () => {
      closed = true;
      resolve({ raw, elapsedMs: Date.now() - startedAt });
    });
    socket.on('error', reject);
  });
  return { answered, closed: () => closed };
}

describe('a client that stalls its request body', () => {
  it('gets a 400 envelope within the read timeout, the connection closed, and others are served meanwhile', async () => {
    const body = JSON.stringify({ document: { url: 'https://example.com/invoice.pdf' } });
    const head = [
      'POST /api/public/v1/document-insights/extractions HTTP/1.1',
      'Host: 127.0.0.1',
      `Authorization: api-key ${bootstrapApiKey}`,
      'Content-Type: application/json',
      `Content-Length: ${body.length}`,
      '',
      '',
    ].join('\r\n');

    const stalled = stalledRequest(head, body.slice(0, 10));
    // While that connection waits, the gateway answers others.
    const meanwhile = await stack.api('/openapi.json');
    const answeredWhileStalled = !stalled.closed();
    const { raw, elapsedMs } = await stalled.answered;

    expect(meanwhile.status).toBe(200);
    expect(answeredWhileStalled).toBe(true);
    const [statusLine] = raw.split('\r\n');
    expect(statusLine).toBe('HTTP/1.1 400 Bad Request');
    expect(raw).toMatch(/\r\nConnection: close\r\n/i);
    const requestId = /\r\nX-Request-Id: ([^\r]+)\r\n/i.exec(raw)?.[1];
    const envelope = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    expect(envelope).toEqual({
      error: { code: 'INVALID_REQUEST', message: expect.stringContaining(`within ${readTimeoutSeconds} seconds`), requestId, retryable: false },
    });
    // Not before the deadline (a stalled connection that is never closed fails the test by its timeout).
    expect(elapsedMs).toBeGreaterThanOrEqual(readTimeoutSeconds * 1000 - 100);
  });

  it('created nothing from the stalled request', async () => {
    const listed = await stack.api('/document-insights/extractions');

    expect(listed.status).toBe(200);
    expect(((await listed.json()) as { data: unknown[] }).data).toEqual([]);
  });
});
