import { PassThrough } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { httpHandler, acceptsJson, queryObject } from '../../../src/http/http-handler.ts';
import { attachStreamedBody, requestBodyStream } from '../../../src/http/request-body.ts';
import { ConflictError, InvalidRequestError } from '../../../src/platform/errors.ts';
import { aPrincipal, anApiGatewayEvent } from '../../support/api-gateway-events.ts';
import { captureLogLines } from '../../support/log-lines.ts';
import { IdempotentRequests } from '../../../src/platform/idempotency/idempotent-requests.ts';
import { InMemoryIdempotencyKeyStore } from '../../support/memory/in-memory-idempotency-key-store.ts';

function event(overrides: Partial<APIGatewayProxyEvent> = {}): APIGatewayProxyEvent {
  return anApiGatewayEvent(overrides);
}

const context = {} as Context;

const createThing = httpHandler(
  {
    scope: 'files:write',
    requestBody: { 'application/json': z.object({ document: z.object({ url: z.string().startsWith('https://') }), count: z.number().int().optional() }) },
    query: z.object({ verbose: z.enum(['true', 'false']).optional() }),
  },
  async (request) => ({ status: 201, body: { received: request.body, workspace: request.principal.workspaceId, query: request.query } }),
);

describe('the shared HTTP chain', () => {
  it('parses JSON and passes the principal from the authorizer context', async () => {
    const response = await createThing(
      event({ headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ document: { url: 'https://a.example/x.pdf' } }) }),
      context,
    );

    expect(response.statusCode).toBe(201);
    expect(JSON.parse(response.body)).toEqual({ received: { document: { url: 'https://a.example/x.pdf' } }, workspace: 'ws_1', query: {} });
    // The id the edge gave the request (requestContext.requestId), not a second one made here.
    expect(response.headers?.['X-Request-Id']).toBe('req-unit');
  });

  it('echoes the client request id in the header and the error body', async () => {
    const response = await createThing(event({ headers: { 'x-request-id': 'trace-7', 'content-type': 'application/json' }, body: '{' }), context);

    expect(response.statusCode).toBe(400);
    expect(response.headers?.['X-Request-Id']).toBe('trace-7');
    expect(JSON.parse(response.body).error).toMatchObject({ code: 'INVALID_REQUEST', requestId: 'trace-7', retryable: false });
  });

  it('reports 422 details with the JSON path exactly as sent', async () => {
    const response = await createThing(
      event({ headers: { 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify({ document: { url: 'http://x' }, count: 1.5 }) }),
      context,
    );

    const { error } = JSON.parse(response.body);
    expect(response.statusCode).toBe(422);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.details.map((detail: { field: string }) => detail.field).sort()).toEqual(['count', 'document.url']);
  });

  it('answers 415 for a content type the route does not take', async () => {
    const response = await createThing(event({ headers: { 'content-type': 'text/plain' }, body: 'hello' }), context);

    expect(response.statusCode).toBe(415);
    expect(JSON.parse(response.body).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });

  it('answers 400 for a missing JSON body', async () => {
    const response = await createThing(event(), context);

    expect(response.statusCode).toBe(400);
  });

  it('answers 400 for bad query values', async () => {
    const response = await createThing(
      event({ headers: { 'content-type': 'application/json' }, body: '{"document":{"url":"https://a"}}', queryStringParameters: { verbose: 'maybe' } }),
      context,
    );

    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).error.message).toContain('verbose');
  });

  it('answers 406 when Accept excludes JSON, before anything else', async () => {
    const response = await createThing(event({ headers: { accept: 'text/html' } }), context);

    expect(response.statusCode).toBe(406);
    expect(JSON.parse(response.body).error.code).toBe('NOT_ACCEPTABLE');
  });

  it('answers 401 when a protected route is reached without an authorizer context', async () => {
    const response = await createThing(anApiGatewayEvent({}, null), context);

    expect(response.statusCode).toBe(401);
  });

  it('renders typed domain errors and hides unexpected ones behind a retryable 500', async () => {
    const conflicting = httpHandler({ scope: 'files:read' }, async () => {
      throw new ConflictError('Busy.');
    });
    const crashing = httpHandler({ scope: 'files:read' }, async () => {
      throw new TypeError('Cannot read properties of undefined (reading "secretTableName")');
    });
    const log = captureLogLines();

    const conflict = await conflicting(event({ httpMethod: 'GET' }), context);
    const crash = await crashing(event({ httpMethod: 'GET' }), context);
    log.restore();

    expect(conflict.statusCode).toBe(409);
    expect(crash.statusCode).toBe(500);
    expect(JSON.parse(crash.body).error).toMatchObject({ code: 'INTERNAL_ERROR', retryable: true });
    expect(crash.body).not.toContain('secretTableName');
    expect(log.lines.filter((line) => line.level === 'error')).toEqual([
      expect.objectContaining({ requestId: JSON.parse(crash.body).error.requestId, error: expect.objectContaining({ name: 'TypeError', stack: expect.any(String) }) }),
    ]);
  });
});

describe('the Idempotency-Key step', () => {
  const jsonRequest = { 'content-type': 'application/json' };
  const body = JSON.stringify({ document: { url: 'https://a.example/x.pdf' } });

  function keyedCreate() {
    const store = new InMemoryIdempotencyKeyStore();
    const handled: unknown[] = [];
    const handler = httpHandler(
      { scope: 'files:write', acceptsIdempotencyKey: true, requestBody: { 'application/json': z.object({}).passthrough(), 'multipart/form-data': z.object({}) } },
      async (request) => {
        handled.push(request.body);
        return { status: 201, body: { id: `thing_${handled.length}` } };
      },
      { idempotentRequests: () => new IdempotentRequests(store) },
    );
    return { handler, handled, store };
  }

  it('refuses a malformed key with 400 before the handler runs or a key is stored', async () => {
    const { handler, handled, store } = keyedCreate();

    const response = await handler(event({ headers: { ...jsonRequest, 'Idempotency-Key': ' padded' }, body }), context);

    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).error).toMatchObject({ code: 'INVALID_REQUEST', message: expect.stringContaining('Idempotency-Key') });
    expect(handled).toHaveLength(0);
    expect(store.claims).toBe(0);
  });

  it('replays a buffered multipart body (as API Gateway passes it, base64) sent again with another boundary', async () => {
    const { handler, handled } = keyedCreate();
    const formEvent = (boundary: string) =>
      event({
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'idempotency-key': 'order-17' },
        body: Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello\r\n--${boundary}--\r\n`).toString('base64'),
        isBase64Encoded: true,
      });

    const first = await handler(formEvent('first-boundary'), context);
    const again = await handler(formEvent('another-boundary'), context);

    expect(first.statusCode).toBe(201);
    expect(first.headers).not.toHaveProperty('Idempotent-Replayed');
    expect(again).toMatchObject({ statusCode: 201, body: first.body, headers: { 'Idempotent-Replayed': 'true' } });
    expect(handled).toHaveLength(1);
  });

  describe('with a streamed body (the embedded stack streams uploads)', () => {
    const form = (boundary: string) => `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\n\r\nhello\r\n--${boundary}--\r\n`;

    function streamedEvent(boundary: string, { ended }: { ended: boolean }) {
      const received = event({ headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, 'idempotency-key': 'upload-3' } });
      const source = new PassThrough();
      if (ended) source.end(form(boundary));
      else source.write(form(boundary).slice(0, 20));
      attachStreamedBody(received, source);
      return received;
    }

    function streamingCreate(answer: (read: string) => number) {
      const store = new InMemoryIdempotencyKeyStore();
      let runs = 0;
      const handler = httpHandler(
        { scope: 'files:write', acceptsIdempotencyKey: true, requestBody: { 'multipart/form-data': z.object({}) } },
        async ({ event: received }) => {
          runs += 1;
          const stream = requestBodyStream(received).stream;
          // Reads one chunk, as a parser that answers before the rest arrived would.
          const [first] = await Promise.race([stream.toArray(), new Promise<Buffer[]>((resolve) => stream.once('data', (chunk: Buffer) => resolve([chunk])))]);
          return { status: answer(String(first ?? '')), body: { run: runs } };
        },
        { idempotentRequests: () => new IdempotentRequests(store) },
      );
      return { handler, store, runs: () => runs };
    }

    it('replays an accepted upload sent again with another boundary, the handler having read it through the step', async () => {
      const { handler, runs } = streamingCreate(() => 201);

      const first = await handler(streamedEvent('one', { ended: true }), context);
      const again = await handler(streamedEvent('two', { ended: true }), context);

      expect(first.statusCode).toBe(201);
      expect(again).toMatchObject({ statusCode: 201, body: first.body, headers: { 'Idempotent-Replayed': 'true' } });
      expect(runs()).toBe(1);
    });

    it('frees the key when the upload was refused before all of it arrived', async () => {
      const { handler, store, runs } = streamingCreate(() => 413);

      const refused = await handler(streamedEvent('one', { ended: false }), context);

      expect(refused.statusCode).toBe(413);
      expect(store.records.size).toBe(0);
      expect(runs()).toBe(1);
    });
  });

  it('cannot be built for a row that accepts a key without where keys are kept', () => {
    expect(() => httpHandler({ scope: 'files:write', acceptsIdempotencyKey: true }, async () => ({ status: 201 }))).toThrow(/idempotentRequests/);
  });

  it('refuses the header sent twice (API Gateway keeps both values in multiValueHeaders)', async () => {
    const { handler: create } = keyedCreate();

    const response = await create(
      event({ headers: { ...jsonRequest, 'Idempotency-Key': 'b' }, multiValueHeaders: { 'Idempotency-Key': ['a', 'b'] }, body }),
      context,
    );

    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body).error.message).toContain('Send the Idempotency-Key header once');
  });

  it('is not taken by a route whose row does not accept a key: the header is ignored', async () => {
    const response = await createThing(event({ headers: { ...jsonRequest, 'Idempotency-Key': 'x'.repeat(300) }, body }), context);

    expect(response.statusCode).toBe(201);
    expect(response.headers).not.toHaveProperty('Idempotent-Replayed');
  });
});

describe('request ids', () => {
  it('uses the edge\'s id (requestContext.requestId) when the client sent none, for errors too', async () => {
    const response = await createThing(event({ headers: { 'content-type': 'application/json' }, body: '{', requestContext: { requestId: 'edge-id-1' } as never }), context);

    expect(response.headers?.['X-Request-Id']).toBe('edge-id-1');
    expect(JSON.parse(response.body).error.requestId).toBe('edge-id-1');
  });

  it.each([
    ['refused', { headers: { 'X-Request-Id': 'has space' } }],
    ['sent twice', { headers: { 'X-Request-Id': 'trace-2' }, multiValueHeaders: { 'X-Request-Id': ['trace-1', 'trace-2'] } }],
  ])('falls back to the edge\'s id when the client id is %s', async (_case, overrides) => {
    const response = await createThing(event({ ...overrides, requestContext: { requestId: 'edge-id-2' } as never }), context);

    expect(response.headers?.['X-Request-Id']).toBe('edge-id-2');
    expect(JSON.parse(response.body).error.requestId).toBe('edge-id-2');
  });

  it('generates one only when the event has none', async () => {
    const response = await createThing(event({ requestContext: {} as never }), context);

    expect(response.headers?.['X-Request-Id']).toMatch(/^req_[0-9a-f-]{36}$/);
    expect(JSON.parse(response.body).error.requestId).toBe(response.headers?.['X-Request-Id']);
  });
});

describe('strings that are not intact text', () => {
  it('answers 422 naming each string of the body that holds a lone surrogate or U+FFFD, with the schema\'s issues', async () => {
    const body = '{"document":{"url":"https://a.example/\\ud800.pdf"},"count":1.5,"notes":["fine","caf\ufffd"]}';

    const response = await createThing(event({ headers: { 'content-type': 'application/json' }, body }), context);

    const { error } = JSON.parse(response.body);
    expect(response.statusCode).toBe(422);
    expect(error.details).toEqual(
      expect.arrayContaining([
        { field: 'document.url', issue: expect.stringContaining('lone surrogate') },
        { field: 'notes[1]', issue: expect.stringContaining('not UTF-8') },
        expect.objectContaining({ field: 'count' }),
      ]),
    );
  });

  it('answers 422 when the schema would take the body but a string in it is not intact', async () => {
    const body = '{"document":{"url":"https://a.example/x.pdf\\udfff"}}';

    const response = await createThing(event({ headers: { 'content-type': 'application/json' }, body }), context);

    expect(response.statusCode).toBe(422);
    expect(JSON.parse(response.body).error.details).toEqual([{ field: 'document.url', issue: expect.stringContaining('well-formed Unicode') }]);
  });

  it.each([
    ['a value holding U+FFFD', { verbose: ['tr\uFFFDe'] }, '"verbose"'],
    ['a value holding a lone surrogate', { verbose: ['\uD800'] }, '"verbose"'],
    ['a name holding U+FFFD', { 'labels[\uFFFD]': ['x'] }, '"labels['],
  ])('answers 400 naming the parameter for %s', (_case, parameters, named) => {
    const parse = () => queryObject({ queryStringParameters: null, multiValueQueryStringParameters: parameters });

    expect(parse).toThrow(InvalidRequestError);
    expect(parse).toThrow(named);
  });
});

describe('a client that left mid-body', () => {
  it('logs the failure that follows at info, not as an error, and still at error when the client stayed', async () => {
    const reading = httpHandler({ scope: 'files:write', requestBody: { 'multipart/form-data': z.unknown() } }, async ({ event: received }) => {
      for await (const chunk of requestBodyStream(received).stream) void chunk;
      throw new Error('aborted');
    });
    const abandoned = event({ headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    const body = new PassThrough();
    attachStreamedBody(abandoned, body);
    body.write('--x\r\n');
    body.destroy();
    const stayed = event({ headers: { 'content-type': 'multipart/form-data; boundary=x' } });
    attachStreamedBody(stayed, PassThrough.from(['--x--\r\n']));
    const log = captureLogLines();

    const answers = [await reading(abandoned, context), await reading(stayed, context)];
    log.restore();

    expect(answers.map((answer) => answer.statusCode)).toEqual([500, 500]);
    expect(log.lines.map((line) => [line.level, line.message])).toEqual([
      ['info', 'request failed after its client left mid-body'],
      ['error', 'request failed'],
    ]);
  });
});

describe('query parsing', () => {
  const query = (parameters: Record<string, string[]>) =>
    queryObject({ queryStringParameters: null, multiValueQueryStringParameters: parameters });

  it.each([['__proto__[sortBy]'], ['constructor[prototype]'], ['constructor[sortBy]'], ['prototype[x]'], ['__proto__'], ['labels[__proto__]']])(
    'refuses %s with 400 and leaves Object.prototype alone',
    (name) => {
      expect(() => query({ [name]: ['bogus'] })).toThrow(InvalidRequestError);
      expect(({} as Record<string, unknown>).sortBy).toBeUndefined();
      expect(({} as Record<string, unknown>).x).toBeUndefined();
      expect((Object as unknown as Record<string, unknown>).sortBy).toBeUndefined();
    },
  );

  it('builds objects without a prototype, where constructor and prototype are ordinary label keys', () => {
    const parsed = query({ 'labels[constructor]': ['x'], 'labels[prototype]': [''], status: ['QUEUED'] });

    expect(Object.getPrototypeOf(parsed)).toBeNull();
    expect(Object.getPrototypeOf(parsed.labels)).toBeNull();
    expect({ ...(parsed.labels as object) }).toEqual({ constructor: 'x', prototype: '' });
    expect(parsed.status).toBe('QUEUED');
  });

  it.each([
    [{ status: ['QUEUED', 'FAILED'] }, 'status'],
    [{ 'labels[a]': ['1', '2'] }, 'labels[a]'],
    [{ labels: ['x'], 'labels[a]': ['1'] }, 'labels'],
  ])('refuses %j naming %s', (parameters, name) => {
    expect(() => query(parameters)).toThrow(`"${name}"`);
  });

  it('answers 400 naming an unknown parameter, and any parameter where the route takes none', async () => {
    const unknown = await createThing(
      event({ headers: { 'content-type': 'application/json' }, body: '{"document":{"url":"https://a"}}', queryStringParameters: { 'labels.customer': 'x' } }),
      context,
    );
    const noneTaken = await httpHandler({ scope: 'files:read' }, async () => ({ status: 200, body: {} }))(
      event({ httpMethod: 'GET', queryStringParameters: { page: '1' } }),
      context,
    );

    expect(unknown.statusCode).toBe(400);
    expect(JSON.parse(unknown.body).error.message).toContain('"labels.customer"');
    expect(noneTaken.statusCode).toBe(400);
    expect(JSON.parse(noneTaken.body).error.message).toContain('"page"');
  });
});

describe('Accept negotiation', () => {
  it.each([
    [undefined, true],
    ['application/json', true],
    ['*/*', true],
    ['text/html, application/*;q=0.5', true],
    ['application/problem+json', true],
    ['text/html', false],
    ['application/json;q=0', false],
    ['application/xml', false],
  ])('Accept %j accepts JSON: %s', (accept, expected) => {
    expect(acceptsJson(accept)).toBe(expected);
  });
});

describe('scopes', () => {
  it('answers 403 FORBIDDEN when the key lacks the route scope, and lets * through', async () => {
    const readEvents = httpHandler({ scope: 'events:read' }, async () => ({ status: 200, body: {} }));

    const forbidden = await readEvents(event({ httpMethod: 'GET' }), context);
    const allowed = await readEvents(anApiGatewayEvent({ httpMethod: 'GET' }, aPrincipal({ scopes: ['*'] })), context);

    expect(forbidden.statusCode).toBe(403);
    expect(JSON.parse(forbidden.body).error.code).toBe('FORBIDDEN');
    expect(allowed.statusCode).toBe(200);
  });
});
