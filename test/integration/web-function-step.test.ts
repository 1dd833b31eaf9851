import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { readConfiguration } from '../../src/composition/configuration.ts';
import { callWebFunction, type WebFunctionDependencies } from '../../src/workflows/steps/web-function.ts';
import { defaultRetryDelayMs } from '../../src/workflows/steps/web-function-retry-delays.ts';
import { StepFailedError } from '../../src/workflows/step-failures.ts';
import { webFunctionDefaults } from '../../src/workflows/step-types/web-function.ts';
import { localPolicy, resolverOf, strictPolicy } from '../support/stub-resolver.ts';
import { startWebhookReceiver, refusedConnectionUrl, type ReceivedWebhook, type RunningWebhookReceiver } from '../support/webhook-receiver.ts';
import { rejectionOf } from '../support/rejections.ts';

// A loopback test server stands in for the user's endpoint, as PAPERFLOW_ALLOW_PRIVATE_URLS=true
// allows locally; each test sets how it answers and reads what it received.
let server: RunningWebhookReceiver;
let answer: (request: ReceivedWebhook, response: ServerResponse) => void = (_request, response) => response.writeHead(404).end();
let received: ReceivedWebhook[] = [];

beforeAll(async () => {
  server = await startWebhookReceiver((request, response) => {
    received.push(request);
    answer(request, response);
  });
});

afterEach(() => {
  received = [];
});

afterAll(async () => {
  await server.close();
});

const local: WebFunctionDependencies = { policy: localPolicy, retryDelayMs: () => 5 };

const stepFailureOf = (promise: Promise<unknown>) => rejectionOf(promise, StepFailedError);

function answerInTurn(...statuses: number[]): void {
  let call = 0;
  answer = (_request, response) => {
    const status = statuses[Math.min(call, statuses.length - 1)]!;
    call += 1;
    response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ call }));
  };
}

describe('callWebFunction', () => {
  it('POSTs the JSON body by default and returns the parsed JSON answer', async () => {
    answer = (_request, response) => response.writeHead(201, { 'Content-Type': 'application/json; charset=utf-8', 'X-Trace': 'abc' }).end('{"accepted":true,"id":7}');

    const output = await callWebFunction({ url: `${server.url}/orders?x=1`, headers: { 'X-Api-Key': 'k1' }, body: { total: 12.5 } }, local);

    expect(output.status).toBe(201);
    expect(output.body).toEqual({ accepted: true, id: 7 });
    expect(output.headers['x-trace']).toBe('abc');
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe('/orders?x=1');
    expect(received[0]!.headers['content-type']).toBe('application/json');
    expect(received[0]!.headers['x-api-key']).toBe('k1');
    expect(JSON.parse(received[0]!.body)).toEqual({ total: 12.5 });
  });

  it('returns a text answer as text and an empty one as null', async () => {
    answer = (request, response) => (request.path === '/text' ? response.writeHead(200, { 'Content-Type': 'text/plain' }).end('plain words') : response.writeHead(204).end());

    const text = await callWebFunction({ url: `${server.url}/text`, method: 'GET' }, local);
    const empty = await callWebFunction({ url: `${server.url}/empty`, method: 'DELETE' }, local);

    expect(text.body).toBe('plain words');
    expect(empty).toMatchObject({ status: 204, body: null });
  });

  it('keeps the text of an answer labelled JSON that does not parse', async () => {
    answer = (_request, response) => response.writeHead(200, { 'Content-Type': 'application/json' }).end('{not json');

    const output = await callWebFunction({ url: `${server.url}/x` }, local);

    expect(output.body).toBe('{not json');
  });

  it('retries a 5xx answer and succeeds on the third call', async () => {
    answerInTurn(500, 502, 200);

    const output = await callWebFunction({ url: `${server.url}/flaky` }, local);

    expect(output).toMatchObject({ status: 200, body: { call: 3 } });
    expect(received).toHaveLength(3);
  });

  it('fails with the last answer as output after the retries are spent', async () => {
    answerInTurn(500);

    const failure = await stepFailureOf(callWebFunction({ url: `${server.url}/down`, retries: 2 }, local));

    expect(received).toHaveLength(3);
    expect(failure.message).toMatch(/answered HTTP 500 after 3 attempts/);
    expect(failure.output).toMatchObject({ status: 500, body: { call: 3 } });
    expect(failure.output!.headers).toMatchObject({ 'content-type': 'application/json' });
  });

  it('pauses 500 ms before the first retry by default, less when PAPERFLOW_WEB_FUNCTION_RETRY_DELAY_MS says so', async () => {
    answerInTurn(503);
    // The pause is a timer: which timers a call set says how long it paused, whatever the machine's load.
    const timers = vi.spyOn(globalThis, 'setTimeout');
    const timersOfOneRetry = async (retryDelayMs?: WebFunctionDependencies['retryDelayMs']) => {
      timers.mockClear();
      await stepFailureOf(callWebFunction({ url: `${server.url}/busy`, retries: 1 }, { policy: localPolicy, retryDelayMs }));
      return timers.mock.calls.map(([, milliseconds]) => milliseconds);
    };

    try {
      const byDefault = await timersOfOneRetry();
      // As the composition root hands it over (src/composition/workflows.ts).
      const { settings } = readConfiguration({ PAPERFLOW_WEB_FUNCTION_RETRY_DELAY_MS: '20' });
      const compressed = await timersOfOneRetry((attempt) => defaultRetryDelayMs(attempt, settings.webFunctionFirstRetryDelayMs));

      expect(received).toHaveLength(4);
      expect(byDefault).toContain(500);
      expect(compressed).toContain(20);
      expect(compressed).not.toContain(500);
    } finally {
      timers.mockRestore();
    }
  });

  it('does not retry a 4xx answer', async () => {
    answerInTurn(404, 200);

    const failure = await stepFailureOf(callWebFunction({ url: `${server.url}/missing` }, local));

    expect(received).toHaveLength(1);
    expect(failure.output).toMatchObject({ status: 404 });
  });

  it('does not follow a redirect: the 3xx answer fails the step', async () => {
    answer = (_request, response) => response.writeHead(302, { Location: `${server.url}/elsewhere` }).end();

    const failure = await stepFailureOf(callWebFunction({ url: `${server.url}/moved` }, local));

    expect(received.map((request) => request.path)).toEqual(['/moved']);
    expect(failure.message).toMatch(/HTTP 302 .*redirects are not followed/);
    expect(failure.output).toMatchObject({ status: 302 });
  });

  it('times out an endpoint that does not answer, retrying the timeout', async () => {
    answer = () => undefined; // never answers
    // An attempt's deadline is a timer (fetchOutbound): the timers the call set say which deadlines it had.
    const timers = vi.spyOn(globalThis, 'setTimeout');

    const failure = await stepFailureOf(callWebFunction({ url: `${server.url}/slow`, timeoutSeconds: 0.2, retries: 1 }, local));
    const timersSet = timers.mock.calls.map(([, milliseconds]) => milliseconds);
    timers.mockRestore();

    expect(failure.message).toMatch(/after 2 attempt\(s\): The request timed out/);
    expect(received).toHaveLength(2);
    // Each attempt had the step's own 0.2 s deadline, not the default (the 500 ms between them is the pause).
    expect(timersSet.filter((milliseconds) => milliseconds === 200)).toHaveLength(2);
    expect(timersSet).not.toContain(webFunctionDefaults.timeoutSeconds * 1000);
  });

  it('retries a refused connection, then fails without output', async () => {
    const url = await refusedConnectionUrl('/gone');

    const failure = await stepFailureOf(callWebFunction({ url, retries: 1 }, local));

    expect(failure.message).toMatch(/after 2 attempt\(s\): The connection failed/);
    expect(failure.output).toBeUndefined();
  });

  it('refuses a name that resolves to a private address without opening a connection or retrying', async () => {
    // The name passes the URL check; only its DNS answer (rebound to this machine) gives it away.
    const resolver = resolverOf({ 'hooks.example.test': ['127.0.0.1'] });
    const port = new URL(server.url).port;

    const failure = await stepFailureOf(
      callWebFunction({ url: `https://hooks.example.test:${port}/x`, retries: 2 }, { policy: strictPolicy, resolveHost: resolver, retryDelayMs: () => 0 }),
    );

    expect(failure.message).toMatch(/could not be resolved to a public address/);
    expect(resolver.calls).toEqual(['hooks.example.test']);
    expect(received).toHaveLength(0);
  });

  it('fails on an evaluated with that is not a valid call, before sending anything', async () => {
    const strict = { policy: strictPolicy };
    const cases: [unknown, RegExp][] = [
      [{ url: `http://example.com/x` }, /with\.url must use https/],
      [{ url: 'https://169.254.169.254/latest/meta-data/' }, /with\.url must not point to a private/],
      [{ url: 42 }, /with\.url must be a URL string/],
      [{ url: 'https://example.com', method: 'TRACE' }, /with\.method must be GET/],
      [{ url: 'https://example.com', timeoutSeconds: 600 }, /with\.timeoutSeconds must be at most 30/],
      [{ url: 'https://example.com', retries: 1.5 }, /with\.retries must be a whole number/],
      [{ url: 'https://example.com', headers: { Host: 'internal' } }, /is set by the HTTP client/],
      [{ url: 'https://example.com', method: 'GET', body: { a: 1 } }, /a GET request has no body/],
      ['https://example.com', /web_function input is invalid/],
    ];
    for (const [evaluatedWith, message] of cases) {
      const failure = await stepFailureOf(callWebFunction(evaluatedWith, strict));
      expect(failure.message).toMatch(message);
    }
  });
});
