import { readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/http/openapi-document.ts';
import { routes } from '../../src/manifest/routes.ts';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import type { OpenApiResponseValidator } from '../support/openapi-response-validator.ts';
import { recordsTable } from '../support/records-table.ts';
import { redirectTmpdir } from '../support/redirected-tmpdir.ts';
import { sampleText } from '../support/sample-files.ts';
import { startWebhookReceiver, type RunningWebhookReceiver } from '../support/webhook-receiver.ts';
import { publishDefinition, WorkflowRunClient } from '../support/workflow-runs.ts';
import { requestTo, urlValues, type FuzzRequest, type KnownIdentifiers } from './openapi-arbitraries.ts';

// Property-based fuzz of every operation the served OpenAPI document lists, over real HTTP against the
// embedded stack (docs/testing.md). For each generated request: never a 5xx, an answer within 10 s,
// every non-2xx the spec's error envelope with the request id of the X-Request-Id header, every
// response as the document describes it, nothing stored changed by a refused request, no 2xx for
// another workspace's resource, and no upload or download spool left in the temporary folder.
// `npm test` runs a few requests per operation with a fixed seed; `npm run fuzz` runs many with a
// printed seed (PAPERFLOW_FUZZ_SEED replays one).

const runsPerOperation = Number(process.env.PAPERFLOW_FUZZ_RUNS || 200);
const seed = Number(process.env.PAPERFLOW_FUZZ_SEED || 20_250_613);
const requestTimeoutMs = 10_000;

// The spec's status and code table (Errors, Codes): the oracle for the envelope's code.
const specCodes: Record<number, string> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_FAILED',
  429: 'RATE_LIMITED',
  500: 'INTERNAL_ERROR',
  502: 'DOWNSTREAM_ERROR',
};

// How the answers spread over statuses: shows the generated requests reach success as well as refusal.
const statuses: Record<number, number> = {};
const counts = { requests: 0, serverErrors: 0, hangs: 0, envelopeViolations: 0, requestIdMismatches: 0, documentViolations: 0, storedChanges: 0, isolationBreaches: 0 };

// Deliveries go to a receiver on loopback (allowed by PAPERFLOW_ALLOW_PRIVATE_URLS); every other URL a
// generated body carries is refused by the outbound guard before a connection (openapi-arbitraries.ts).
const environment = { PAPERFLOW_ALLOW_PRIVATE_URLS: 'true', PAPERFLOW_WEBHOOK_TIMEOUT_SECONDS: '2', PAPERFLOW_WEBHOOK_RETRY_DELAYS: '0,1,1,1,1,1' };
const workspaces = { owner: 'ws_fuzz_owner', other: 'ws_fuzz_other' };

// The operations, one test each, named when the file is collected from the document the route table
// makes (no stack is booted to list the tests); the requests are generated from the document the stack
// serves, and the first test checks that it lists exactly these operations.
const httpMethods = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);
const routeTableOperations = Object.entries(buildOpenApiDocument(routes).paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, methods]) =>
  Object.entries(methods)
    .filter(([method]) => httpMethods.has(method))
    .map(([method, described]) => ({ method, path, operationId: described.operationId })),
);

let temporaryFolder: ReturnType<typeof redirectTmpdir>;
let receiver: RunningWebhookReceiver;
let stack: StackUnderTest;
let validator: OpenApiResponseValidator;
let keys: { owner: string; otherWorkspace: string; noScopes: string; badKey: string };
let owned: KnownIdentifiers;
let others: KnownIdentifiers;
let known: KnownIdentifiers;

beforeAll(async () => {
  Object.assign(process.env, environment);
  // The stack's temporary files go to a folder of the fuzz's own, so the spools its requests leave
  // behind can be counted at the end.
  temporaryFolder = redirectTmpdir('paperflow-fuzz-tmp-');
  // Webhook POSTs succeed; a GET (a document URL) is 404, so no download is stored behind the fuzz's back.
  receiver = await startWebhookReceiver((request, response) => {
    response.writeHead(request.headers['content-type'] ? 200 : 404).end('ok');
  });
  stack = await startStackUnderTest();
  validator = await stack.responseValidator();
  keys = {
    owner: await workspaceKey(workspaces.owner),
    otherWorkspace: await workspaceKey(workspaces.other),
    noScopes: await workspaceKey(workspaces.owner, ['workflows:read']),
    badKey: 'pf_live_thisKeyWasNeverIssued000000',
  };
  owned = await seedWorkspace(workspaces.owner, new ExtractionClient(stack, keys.owner));
  others = await seedWorkspace(workspaces.other, new ExtractionClient(stack, keys.otherWorkspace));
  known = Object.fromEntries(Object.keys(owned).map((word) => [word, [...owned[word]!, ...others[word]!]]));
});

afterAll(async () => {
  console.log(`API fuzz (seed ${seed}, ${runsPerOperation} runs per operation, ${routeTableOperations.length} operations): ${JSON.stringify(counts)}; statuses ${JSON.stringify(statuses)}`);
  await stack?.stop();
  await receiver?.close();
  for (const name of Object.keys(environment)) delete process.env[name];
  temporaryFolder?.restore();
});

describe(`API fuzz, seed ${seed}`, () => {
  it('fuzzes every operation the served document lists, and only those', () => {
    const served = validator.operations().map(({ method, path, operationId }) => `${method} ${path} ${operationId}`);

    expect(served.sort()).toEqual(routeTableOperations.map(({ method, path, operationId }) => `${method} ${path} ${operationId}`).sort());
  });

  for (const { method, path, operationId } of routeTableOperations) {
    it(`${method.toUpperCase()} ${path} (${operationId}) holds every property`, async () => {
      const operation = validator.operations().find((served) => served.operationId === operationId);
      expect(operation, `the served document has no operation ${operationId}`).toBeDefined();
      await fc.assert(
        fc.asyncProperty(requestTo(operation!, known, urlValues(receiver.url)), async (request) => {
          const problems = await check(request);
          if (problems.length > 0) throw new Error(problems.join('\n'));
        }),
        { seed, numRuns: runsPerOperation, endOnFailure: true },
      );
    }, Math.max(60_000, runsPerOperation * 5_000));
  }

  it('met no 5xx, hang, envelope or request id fault in all the requests it sent', () => {
    expect(counts.requests).toBeGreaterThanOrEqual(routeTableOperations.length * runsPerOperation);
    expect({ ...counts, requests: 0 }).toEqual({ requests: 0, serverErrors: 0, hangs: 0, envelopeViolations: 0, requestIdMismatches: 0, documentViolations: 0, storedChanges: 0, isolationBreaches: 0 });
  });

  it('left no upload or download spool behind in the temporary folder', () => {
    const spools = readdirSync(temporaryFolder.folder).filter((name) => /^paperflow-(upload|download)-/.test(name));
    expect(spools).toEqual([]);
  });
});

/** Sends one request and returns what it broke, counting each fault. */
async function check(request: FuzzRequest): Promise<string[]> {
  const callerWorkspace = request.caller === 'otherWorkspace' ? workspaces.other : workspaces.owner;
  const before = await storedStateOf(callerWorkspace);
  const url = `${stack.baseUrl}${request.path}`;
  const key = request.caller === 'none' ? undefined : keys[request.caller];
  const started = Date.now();
  counts.requests += 1;
  const response = await send(url, request, key);
  const label = `${request.caller} ${request.method} ${request.path.slice(0, 300)} ${JSON.stringify(request.headers)} body ${request.body?.subarray(0, 200).toString() ?? '(none)'}`;
  if (response === 'timeout') {
    counts.hangs += 1;
    return [`no answer within ${requestTimeoutMs} ms: ${label}`];
  }
  statuses[response.status] = (statuses[response.status] ?? 0) + 1;
  const problems: string[] = [];
  const fault = (counter: keyof typeof counts, message: string) => {
    counts[counter] += 1;
    problems.push(`${message} (status ${response.status}, ${Date.now() - started} ms): ${label}\n  answer: ${response.body.slice(0, 400)}`);
  };
  if (response.status >= 500) fault('serverErrors', 'a 5xx');
  const documentProblems = validator.problemsOf({ method: request.method, url, status: response.status, contentType: response.contentType, requestId: response.requestId, body: response.body });
  if (documentProblems.length > 0) fault('documentViolations', `not as the document says: ${documentProblems.join('; ')}`);
  // A head over Node's 16 KB limit is refused before its headers are read: no id to echo then.
  const sentRequestId = request.headers['x-request-id'];
  const headReadable = Buffer.byteLength(request.path) + JSON.stringify(request.headers).length < 16_000;
  if (sentRequestId !== undefined && /^[A-Za-z0-9-]{1,40}$/.test(sentRequestId) && headReadable && response.requestId !== sentRequestId) {
    fault('requestIdMismatches', `the client's X-Request-Id ${sentRequestId} was not echoed (${response.requestId})`);
  }
  const succeeded = response.status >= 200 && response.status < 300;
  if (!succeeded) {
    const envelope = errorEnvelopeOf(response);
    if (typeof envelope === 'string') fault('envelopeViolations', envelope);
    else if (envelope && envelope.requestId !== response.requestId) fault('requestIdMismatches', `the envelope's requestId ${envelope.requestId} is not the header's ${response.requestId}`);
    const after = await storedStateOf(callerWorkspace);
    if (after !== before) fault('storedChanges', `a refused request changed what is stored:\n  before ${before}\n  after  ${after}`);
  }
  const foreign = request.caller === 'otherWorkspace' ? owned : others;
  const namesForeign = Object.values(foreign).flat().some((id) => request.path.includes(id));
  if (succeeded && namesForeign && request.caller !== 'none') fault('isolationBreaches', 'a 2xx for another workspace\'s resource');
  return problems;
}

/** The envelope's fields, or what is wrong with it; undefined for the edge's plain-text 429. */
function errorEnvelopeOf(response: Answer): { requestId: string } | string | undefined {
  if (response.status === 429 && response.contentType?.startsWith('text/plain')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(response.body);
  } catch {
    return 'the error body is not JSON';
  }
  const error = (parsed as { error?: Record<string, unknown> } | null)?.error;
  if (!error || typeof error.code !== 'string' || typeof error.message !== 'string' || typeof error.requestId !== 'string' || typeof error.retryable !== 'boolean') {
    return 'the error body is not {error: {code, message, requestId, retryable}}';
  }
  if (specCodes[response.status] !== error.code) return `status ${response.status} carries code ${error.code}, the spec says ${specCodes[response.status]}`;
  if (error.details !== undefined && error.code !== 'VALIDATION_FAILED') return `details on a ${error.code}`;
  return { requestId: error.requestId };
}

interface Answer {
  status: number;
  contentType: string | null;
  requestId: string | null;
  body: string;
}

/** The request over node:http, byte for byte as generated (fetch would refuse or normalise some of it). */
function send(url: string, request: FuzzRequest, apiKey: string | undefined): Promise<Answer | 'timeout'> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...request.headers, ...(apiKey ? { authorization: `api-key ${apiKey}` } : {}) };
    if (request.body) headers['content-length'] = request.body.length;
    const outgoing = httpRequest(url, { method: request.method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        const header = (name: string) => [response.headers[name] ?? []].flat()[0] ?? null;
        resolve({ status: response.statusCode ?? 0, contentType: header('content-type'), requestId: header('x-request-id'), body: Buffer.concat(chunks).toString('utf8') });
      });
      response.on('error', reject);
    });
    const timer = setTimeout(() => {
      outgoing.destroy();
      resolve('timeout');
    }, requestTimeoutMs);
    // A server may answer (413, 415) and close before the whole body is written: its answer counts.
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') {
        clearTimeout(timer);
        reject(error);
      }
    });
    outgoing.end(request.body);
  });
}

/**
 * What a client can observe of a workspace that only a request can change: its extractions (with
 * their labels and review flag), its subscriptions, its file count, its number of workflow runs and
 * the deliveries of its seeded event. Processing in the background changes none of these, so two
 * snapshots around a refused request must be equal.
 */
async function storedStateOf(workspaceId: string): Promise<string> {
  const client = new ExtractionClient(stack, workspaceId === workspaces.owner ? keys.owner : keys.otherWorkspace);
  const seeded = workspaceId === workspaces.owner ? owned : others;
  // The reads are independent: sent together, the gateway and the emulators' thread work side by side.
  const { client: table, tableName } = recordsTable();
  const [extractions, subscriptions, deliveries, runs, files] = await Promise.all([
    extractionsOf(client),
    client.json('/event-subscriptions?size=100&sort=asc').then(({ body }) => body.data),
    client.json(`/events/${seeded.event![0]}/deliveries?size=100`).then(({ body }) => body.pageInfo.totalItems),
    client.json('/workflow-runs?size=1').then(({ body }) => body.pageInfo.totalItems),
    table.send(new QueryCommand({ TableName: tableName, IndexName: 'gsi1', KeyConditionExpression: 'gsi1pk = :pk', ExpressionAttributeValues: { ':pk': `WS#${workspaceId}#FILES` }, Select: 'COUNT' })),
  ]);
  return JSON.stringify({ extractions, subscriptions, files: files.Count, deliveries, runs });
}

async function extractionsOf(client: ExtractionClient): Promise<unknown[]> {
  const extractions: unknown[] = [];
  for (let page = 0; ; page += 1) {
    const { body } = await client.list(`size=100&page=${page}&sort=asc`);
    extractions.push(...body.data.map((extraction: Record<string, unknown>) => [extraction.id, extraction.labels, extraction.reviewRequired ?? false]));
    if (page + 1 >= body.pageInfo.totalPages) return extractions;
  }
}

/** One of each resource in the workspace, for path parameters that name something that exists. */
async function seedWorkspace(workspaceId: string, client: ExtractionClient): Promise<KnownIdentifiers> {
  const workflowId = await publishDefinition(workspaceId, [{ id: 'shape', type: 'transform', with: { received: '{{ body }}' } }]);
  const run = await new WorkflowRunClient(stack, client.apiKey).run(workflowId, { seeded: true });
  const send = (method: string, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const subscription = await client.json(
    '/event-subscriptions',
    send('POST', { name: 'fuzz', endpointUrl: `${receiver.url}/hook`, eventTypes: ['document-insights.extraction.completed', 'document-insights.extraction.failed', 'document-insights.extraction.rejected'] }),
  );
  if (subscription.status !== 201) throw new Error(`seed subscription: ${subscription.status} ${JSON.stringify(subscription.body)}`);
  const fileId = await client.uploadFile(Buffer.from(sampleText), 'remittance.txt');
  const upload = await client.upload(Buffer.from(sampleText), 'remittance.txt', { source: 'fuzz' });
  if (upload.status !== 202) throw new Error(`seed extraction: ${upload.status} ${JSON.stringify(upload.body)}`);
  await client.waitForTerminal(upload.body.id, 60_000);
  const deadline = Date.now() + 30_000;
  for (;;) {
    const events = (await client.json('/events')).body.data as { eventId: string }[];
    const deliveries = events.length > 0 ? ((await client.json(`/events/${events[0]!.eventId}/deliveries`)).body.data as { id: string }[]) : [];
    if (events.length > 0 && deliveries.length > 0) {
      return {
        extraction: [upload.body.id],
        file: [fileId],
        subscription: [subscription.body.id],
        event: [events[0]!.eventId],
        delivery: [deliveries[0]!.id],
        workflow: [workflowId],
        run: [run.id],
      };
    }
    if (Date.now() > deadline) throw new Error('the seeded extraction made no event with a delivery within 30 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
