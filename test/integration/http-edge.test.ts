import { request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { randomUUID } from 'node:crypto';
import { createConnection } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { jsonOf, startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { captureLogLines } from '../support/log-lines.ts';
import { samplePdf } from '../support/sample-files.ts';

// The HTTP edge as a client meets it over real HTTP: query parsing that no parameter name can turn
// against the process, one request id per request, methods, and strict query parameters.
let stack: StackUnderTest;
let client: ExtractionClient;
const extractions = '/document-insights/extractions';
const missingExtraction = `${extractions}/ext_00000000000000000000000000`;

beforeAll(async () => {
  stack = await startStackUnderTest();
  client = new ExtractionClient(stack, await workspaceKey('ws_http_edge'));
});

afterAll(async () => {
  await stack?.stop();
});

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/**
 * A request (path below the API base) exactly as written: any method token, repeated headers, values
 * fetch would normalise. Its response is held to the served OpenAPI document, as `stack.api`'s are.
 */
async function rawRequest(method: string, path: string, headers: OutgoingHttpHeaders = {}): Promise<RawResponse> {
  const response = await sendRawRequest(method, path, headers);
  const header = (name: string) => [response.headers[name] ?? []].flat()[0] ?? null;
  await stack.assertDocumentedResponse({
    method,
    url: `${stack.baseUrl}${path}`,
    status: response.status,
    contentType: header('content-type'),
    requestId: header('x-request-id'),
    body: response.text,
  });
  return response;
}

function sendRawRequest(method: string, path: string, headers: OutgoingHttpHeaders): Promise<RawResponse> {
  // Not through URL, which would resolve "." and ".." segments before they are sent.
  const base = new URL(stack.baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: base.hostname, port: base.port, path: `${base.pathname}${path}`, method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

function withKey(headers: OutgoingHttpHeaders = {}): OutgoingHttpHeaders {
  return { authorization: `api-key ${client.apiKey}`, ...headers };
}

describe('query parameter names that name JavaScript internals', () => {
  it.each([
    '__proto__[sortBy]=bogus',
    '__proto__[status]=FAILED',
    'constructor[prototype][x]=1',
    'constructor[x]=1',
    'prototype[x]=1',
    '__proto__=1',
    'labels[__proto__]=x',
  ])('answers 400 INVALID_REQUEST to %s', async (query) => {
    const { status, body } = await client.list(query);

    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'INVALID_REQUEST', retryable: false });
  });

  it('leaves every workspace working after the attack requests', async () => {
    const attacker = new ExtractionClient(stack, await workspaceKey('ws_http_edge_attacker'));
    for (const query of ['__proto__[sortBy]=bogus', 'constructor[prototype][x]=1', 'constructor[sortBy]=bogus', '__proto__[labels]=x']) {
      await attacker.list(query);
    }
    const other = new ExtractionClient(stack, await workspaceKey('ws_http_edge_other'));

    const list = await other.list();
    const upload = await other.upload(await samplePdf(), 'after-attack.pdf', { customer: 'acme' });
    const filtered = await other.list('labels[customer]=acme');

    expect(({} as Record<string, unknown>).sortBy).toBeUndefined();
    expect(({} as Record<string, unknown>).labels).toBeUndefined();
    expect(list.status).toBe(200);
    expect(upload.status).toBe(202);
    expect(filtered.status).toBe(200);
    expect(filtered.body.data.map((item: { id: string }) => item.id)).toEqual([upload.body.id]);
  });

  it('treats labels[constructor] and labels[prototype] as ordinary label keys of the filter', async () => {
    const { status, body } = await client.list('labels[constructor]=x&labels[prototype]=');

    expect(status).toBe(200);
    expect(body.pageInfo.totalItems).toBe(0);
  });
});

describe('one request id per request', () => {
  const errorCases: [string, () => Promise<Response>, number][] = [
    ['a bad query value (handler)', () => client.request(`${extractions}?size=abc`), 400],
    ['an unknown extraction (handler)', () => client.request(missingExtraction), 404],
    ['an unknown path (gateway)', () => client.request('/nowhere'), 404],
    ['an unsupported method (gateway)', () => client.request(extractions, { method: 'PUT' }), 405],
    ['Accept without JSON (handler)', () => client.request(extractions, { headers: { accept: 'text/html' } }), 406],
    ['an unsupported content type (handler)', () => client.request(extractions, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x' }), 415],
    ['an invalid body (handler)', () => client.request(extractions, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }), 422],
    [
      'a key without the scope (handler)',
      async () => stack.api(extractions, { apiKey: await workspaceKey('ws_http_edge_reader', ['files:read']) }),
      403,
    ],
  ];

  it.each(errorCases)('gives the header and the body the same generated id for %s', async (_case, send, expectedStatus) => {
    const response = await send();
    const body = await jsonOf(response);

    expect(response.status).toBe(expectedStatus);
    expect(body.error.requestId).toMatch(/^req_/);
    expect(response.headers.get('x-request-id')).toBe(body.error.requestId);
  });

  it.each([
    ['empty', ''],
    ['over 128 characters', 'x'.repeat(129)],
    ['non-ASCII', 'trace-\u00e9'],
    ['holding a tab', 'trace\t7'],
    ['sent twice', ['trace-1', 'trace-2']],
  ])('replaces a client id that is %s by one id used in the header and the body', async (_case, clientId) => {
    const response = await rawRequest('GET', missingExtraction, withKey({ 'x-request-id': clientId }));
    const body = JSON.parse(response.text);

    expect(response.status).toBe(404);
    expect(body.error.requestId).toMatch(/^req_/);
    expect(response.headers['x-request-id']).toBe(body.error.requestId);
  });

  it('echoes an acceptable client id in the header and the body of a handler error', async () => {
    const response = await rawRequest('GET', missingExtraction, withKey({ 'x-request-id': 'trace-edge-7' }));

    expect(response.status).toBe(404);
    expect(response.headers['x-request-id']).toBe('trace-edge-7');
    expect(JSON.parse(response.text).error.requestId).toBe('trace-edge-7');
  });
});

describe('methods', () => {
  it('answers an unknown method on a known path with 405, the envelope, Allow and a request id', async () => {
    const response = await rawRequest('FOO', '/files', { 'x-request-id': 'trace-foo' });
    const body = JSON.parse(response.text);

    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expect(body.error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', requestId: 'trace-foo', retryable: false });
    expect(response.headers['x-request-id']).toBe('trace-foo');
  });

  it('answers an unknown method on an unknown path with 404 and the envelope', async () => {
    const response = await rawRequest('FOO', '/nowhere');
    const body = JSON.parse(response.text);

    expect(response.status).toBe(404);
    expect(body.error.code).toBe('NOT_FOUND');
    expect(response.headers['x-request-id']).toBe(body.error.requestId);
  });

  it('answers HEAD as GET without a body', async () => {
    const get = await rawRequest('GET', extractions, withKey({ 'x-request-id': 'trace-head' }));
    const head = await rawRequest('HEAD', extractions, withKey({ 'x-request-id': 'trace-head' }));

    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
    expect(head.headers['x-request-id']).toBe('trace-head');
  });

  it('answers HEAD on the public OpenAPI document as GET without a body', async () => {
    const get = await rawRequest('GET', '/openapi.json');
    const head = await rawRequest('HEAD', '/openapi.json');

    expect(head.status).toBe(200);
    expect(head.text).toBe('');
    expect(head.headers['content-length']).toBe(get.headers['content-length']);
  });

  it.each(['GET', 'DELETE', 'HEAD'])('answers %s on the upload path with 405 and Allow: POST', async (method) => {
    const response = await client.request(`${extractions}/upload`, { method });

    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });
});

describe('strict query parameters', () => {
  it.each([
    ['a repeated parameter', 'status=QUEUED&status=FAILED', 'status'],
    ['a repeated label filter', 'labels[customer]=a&labels[customer]=b', 'labels[customer]'],
    ['an unknown parameter', 'labels.customer=x', 'labels.customer'],
    ['an unknown deep-object group', 'filters[customer]=x', 'filters'],
    ['labels both as a value and as labels[key]', 'labels=x&labels[customer]=y', 'labels'],
  ])('answers 400 naming the parameter for %s', async (_case, query, name) => {
    const { status, body } = await client.list(query);

    expect(status).toBe(400);
    expect(body.error.code).toBe('INVALID_REQUEST');
    expect(body.error.message).toContain(`"${name}"`);
  });

  it.each([
    ['/openapi.json?format=yaml', null],
    [`${missingExtraction}?verbose=true`, 'key'],
  ])('answers 400 to a query parameter on %s, which takes none', async (path, key) => {
    const response = await stack.api(path, key === null ? { apiKey: null } : { apiKey: client.apiKey });
    const body = await jsonOf(response);

    expect(response.status).toBe(400);
    expect(body.error.code).toBe('INVALID_REQUEST');
    expect(response.headers.get('x-request-id')).toBe(body.error.requestId);
  });
});

describe('logs', () => {
  it('attach to every line a handler logs the request id its response names, also for requests in parallel', async () => {
    // Debug lets the SDK's record of each DynamoDB call through: lines logged deep below the handler,
    // by code that was never handed the request id.
    vi.stubEnv('PAPERFLOW_LOG_LEVEL', 'debug');
    const log = captureLogLines();

    const responses = await Promise.all([
      client.request(missingExtraction),
      client.request(missingExtraction, { headers: { 'X-Request-Id': 'client-chosen-log-id' } }),
      client.request(extractions),
    ]).finally(() => {
      log.restore();
      vi.unstubAllEnvs();
    });

    const requestIds = responses.map((response) => response.headers.get('x-request-id')!);
    expect(requestIds[1]).toBe('client-chosen-log-id');
    expect(new Set(requestIds).size).toBe(3);
    for (const [index, requestId] of requestIds.entries()) {
      const handlerLines = log.lines.filter((line) => line.source === 'aws-sdk' && line.functionName !== undefined && line.requestId === requestId);
      expect(handlerLines.length, `request ${index} (${requestId}) logged no SDK call from its handler`).toBeGreaterThan(0);
    }
    // No line took another request's id (lines of work still running from earlier tests carry none).
    expect(log.lines.filter((line) => line.requestId !== undefined && !requestIds.includes(line.requestId as string))).toEqual([]);
  });
});

/** Writes `head` (a request as raw text) on a new connection; resolves with what came back before the server closed it. */
function rawExchange(head: string): Promise<RawResponse> {
  const url = new URL(stack.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: url.hostname, port: Number(url.port) }, () => socket.write(head));
    let raw = '';
    socket.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    socket.on('error', reject);
    socket.on('close', () => {
      const headEnd = raw.indexOf('\r\n\r\n');
      const [statusLine = '', ...headerLines] = raw.slice(0, headEnd === -1 ? raw.length : headEnd).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3}) /.exec(statusLine)?.[1] ?? 0), headers, text: headEnd === -1 ? '' : raw.slice(headEnd + 4) });
    });
  });
}

describe('CONNECT', () => {
  it('answers CONNECT on a known path with 405, the envelope, Allow and the request id', async () => {
    const response = await rawExchange(`CONNECT ${new URL(stack.baseUrl).pathname}/files HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: trace-connect\r\n\r\n`);

    expect(response.status).toBe(405);
    expect(response.headers.allow).toBe('POST');
    expect(response.headers['x-request-id']).toBe('trace-connect');
    expect(JSON.parse(response.text).error).toMatchObject({ code: 'METHOD_NOT_ALLOWED', requestId: 'trace-connect', retryable: false });
  });

  it('answers CONNECT to a host (authority form) with 404 and the envelope', async () => {
    const response = await rawExchange('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    const body = JSON.parse(response.text);

    expect(response.status).toBe(404);
    expect(body.error.code).toBe('NOT_FOUND');
    expect(response.headers['x-request-id']).toBe(body.error.requestId);
  });
});

describe('strings that are not well-formed Unicode', () => {
  // As written in JSON text: the parsed string holds the lone surrogate U+D800.
  const loneSurrogate = '\\ud800';
  const json = (body: string) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body });

  it('answers 422 naming the field for a lone surrogate in a feedback message', async () => {
    const { status, body } = await client.json(`${missingExtraction}/feedback`, json(`{"message":"bad ${loneSurrogate} text"}`));

    expect(status).toBe(422);
    expect(body.error).toMatchObject({ code: 'VALIDATION_FAILED', retryable: false });
    expect(body.error.details).toEqual([{ field: 'message', issue: expect.stringContaining('well-formed Unicode') }]);
  });

  it('answers 422 naming the field for a lone surrogate in a subscription name, and creates nothing', async () => {
    const subscription = (name: string) =>
      `{"name":"${name}","endpointUrl":"https://hooks.example.com/paperflow","eventTypes":["document-insights.extraction.completed"]}`;

    const refused = await client.json('/event-subscriptions', json(subscription(`Orders ${loneSurrogate}`)));
    const listed = await client.json('/event-subscriptions');

    expect(refused.status).toBe(422);
    expect(refused.body.error.details).toEqual([{ field: 'name', issue: expect.stringContaining('well-formed Unicode') }]);
    expect(listed.body.pageInfo.totalItems).toBe(0);
  });

  it('answers 422, as the OpenAPI document says, for a lone surrogate deep in a workflow run\'s free-form JSON input', async () => {
    const { status, body } = await client.json('/workflows/wf_00000000000000000000000000/runs', json(`{"order":{"lines":[{"note":"${loneSurrogate}"}]}}`));

    expect(status).toBe(422);
    expect(body.error.details).toEqual([{ field: 'order.lines[0].note', issue: expect.stringContaining('well-formed Unicode') }]);
  });

  it('answers 422 for body bytes that are not UTF-8, naming the field that holds them', async () => {
    const body = Buffer.concat([Buffer.from('{"message":"caf'), Buffer.from([0xe9]), Buffer.from('"}')]);

    const { status, body: answer } = await client.json(`${missingExtraction}/feedback`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

    expect(status).toBe(422);
    expect(answer.error.details).toEqual([{ field: 'message', issue: expect.stringContaining('not UTF-8') }]);
  });

  it.each([
    ['a label filter value holding an encoded lone surrogate', '/document-insights/extractions?labels[customer]=%ED%A0%80', 'labels[customer]'],
    ['a label filter key holding an encoded lone surrogate', '/document-insights/extractions?labels[%ED%A0%80]=x', 'labels['],
    ['a subscription name filter holding an encoded lone surrogate', '/event-subscriptions?name=%ED%A0%80', 'name'],
    ['a subscription name filter holding a byte that is not UTF-8', '/event-subscriptions?name=%FF', 'name'],
  ])('answers 400 naming the parameter for %s', async (_case, path, name) => {
    const response = await rawRequest('GET', path, withKey());
    const body = JSON.parse(response.text);

    expect(response.status).toBe(400);
    expect(body.error).toMatchObject({ code: 'INVALID_REQUEST', retryable: false });
    expect(body.error.message).toContain(`"${name}`);
    expect(response.headers['x-request-id']).toBe(body.error.requestId);
  });

  it('still takes well-formed text outside ASCII in the body and the query', async () => {
    const filtered = await rawRequest('GET', `/event-subscriptions?name=${encodeURIComponent('Bestellungen 🧾 ü')}`, withKey());

    expect(filtered.status).toBe(200);
  });
});

describe('Authorization', () => {
  it.each([
    ['a valid key, then another value', () => [`api-key ${client.apiKey}`, 'api-key pf_live_notakeyatallnotakey00']],
    ['another value, then a valid key', () => ['api-key pf_live_notakeyatallnotakey00', `api-key ${client.apiKey}`]],
    ['the same valid key twice', () => [`api-key ${client.apiKey}`, `api-key ${client.apiKey}`]],
  ])('answers 401 in the envelope to two Authorization headers: %s', async (_case, values) => {
    // Node's types allow one Authorization value; given a list, it writes one header line per value.
    const response = await rawRequest('GET', extractions, { 'x-request-id': 'trace-two-keys', ['Authorization' as string]: values() });
    const body = JSON.parse(response.text);

    expect(response.status).toBe(401);
    expect(body.error).toMatchObject({ code: 'UNAUTHORIZED', requestId: 'trace-two-keys' });
    expect(response.headers['x-request-id']).toBe('trace-two-keys');
  });

  it('answers one Authorization header with the key as usual', async () => {
    const response = await rawRequest('GET', extractions, withKey());

    expect(response.status).toBe(200);
  });
});

describe('dot segments', () => {
  it.each([
    `${extractions}/.`,
    `${extractions}/./`,
    `${extractions}/..`,
    `${extractions}/../extractions`,
    `/files/../document-insights/extractions`,
    `/./document-insights/extractions`,
  ])('answers GET %s with 404 in the envelope, not with the list', async (path) => {
    // Sent without the check against the OpenAPI document: its validator resolves the dot segments
    // too, and would hold the answer to the operation they resolve to.
    const response = await sendRawRequest('GET', path, withKey());
    const body = JSON.parse(response.text);

    expect(response.status).toBe(404);
    expect(body.error).toMatchObject({ code: 'NOT_FOUND', retryable: false });
    expect(response.headers['x-request-id']).toBe(body.error.requestId);
  });

  it('answers a dot segment sent percent-encoded with 404 too', async () => {
    const response = await sendRawRequest('GET', `${extractions}/%2e`, withKey());

    expect(response.status).toBe(404);
    expect(JSON.parse(response.text).error.code).toBe('NOT_FOUND');
  });
});

describe('a client that aborts its request', () => {
  it.each([
    ['a multipart upload', '/files', 'multipart/form-data; boundary=xyz', '--xyz\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.4 '],
    ['a JSON body', extractions, 'application/json', '{"document":'],
  ])('is logged at info, never as an error: %s', async (_case, path, contentType, partialBody) => {
    const requestId = `trace-abort-${randomUUID()}`;
    // Debug lets the authorizer's table read through: a line that shows the gateway has the request.
    vi.stubEnv('PAPERFLOW_LOG_LEVEL', 'debug');
    const log = captureLogLines();
    try {
      const socket = createConnection({ host: '127.0.0.1', port: stack.port }, () =>
        socket.write(
          `POST ${new URL(stack.baseUrl).pathname}${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: api-key ${client.apiKey}\r\n` +
            `X-Request-Id: ${requestId}\r\nContent-Type: ${contentType}\r\nContent-Length: 1000000\r\n\r\n${partialBody}`,
        ),
      );
      socket.on('error', () => {});
      // Abort once the gateway has the request in hand (its handler is reading the body).
      await vi.waitFor(() => expect(log.lines.some((line) => line.requestId === requestId)).toBe(true), { timeout: 10_000, interval: 20 });
      socket.destroy();
      await vi.waitFor(() => expect(log.lines.filter((line) => line.requestId === requestId && /went away/.test(line.message))).toHaveLength(1), { timeout: 10_000, interval: 20 });
    } finally {
      log.restore();
      vi.unstubAllEnvs();
    }

    const lines = log.lines.filter((line) => line.requestId === requestId);
    expect(lines.filter((line) => line.level === 'error' || line.level === 'warn')).toEqual([]);
    expect(lines.find((line) => /went away/.test(line.message))?.level).toBe('info');
  });
});
