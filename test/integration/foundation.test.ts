import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyService, workspaceStore } from '../../src/composition/auth.ts';
import { jsonOf, startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';

// The conventions every operation shares, driven over real HTTP against the embedded stack.
// `GET /files/{fileId}` stands in for "an authenticated operation".
let stack: StackUnderTest;
const someFile = '/files/file_00000000000000000000000000';

beforeAll(async () => {
  stack = await startStackUnderTest();
});

afterAll(async () => {
  await stack?.stop();
});

async function keyWith(scopes: string[], workspaceId = 'ws_default', rateLimit?: { requestsPerSecond: number; burst: number }) {
  await workspaceStore().ensure({ id: workspaceId, name: workspaceId, createdAt: new Date().toISOString() });
  return apiKeyService().create({ workspaceId, name: 'test', scopes, ...(rateLimit ? { rateLimit } : {}) });
}

describe('OpenAPI document', () => {
  it('is served without a key as a valid OpenAPI 3.1 document', async () => {
    const response = await stack.api('/openapi.json', { apiKey: null });
    const document = await jsonOf(response);

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(document.openapi).toBe('3.1.0');
    expect((await new Validator().validate(document)).valid).toBe(true);
  });
});

describe('authentication', () => {
  it.each([
    ['missing', null],
    ['malformed', 'Bearer something'],
    ['unknown', 'api-key pf_live_unknownunknownunknown00'],
  ])('answers 401 with the envelope and a request id for a %s key', async (_case, authorization) => {
    const response = await stack.api(someFile, { apiKey: null, headers: authorization ? { authorization } : {} });
    const body = await jsonOf(response);

    expect(response.status).toBe(401);
    expect(body.error).toMatchObject({ code: 'UNAUTHORIZED', retryable: false });
    expect(response.headers.get('x-request-id')).toBe(body.error.requestId);
  });

  it('answers 401 once a key is revoked', async () => {
    const { secret, record } = await keyWith(['files:read']);
    expect((await stack.api(someFile, { apiKey: secret })).status).toBe(404);

    await apiKeyService().revoke(record.keyId);

    expect((await stack.api(someFile, { apiKey: secret })).status).toBe(401);
  });

  it('answers 403 FORBIDDEN when the key lacks the route scope', async () => {
    const { secret } = await keyWith(['extractions:read']);

    const response = await stack.api(someFile, { apiKey: secret });

    expect(response.status).toBe(403);
    expect((await jsonOf(response)).error.code).toBe('FORBIDDEN');
  });
});

describe('rate limiting', () => {
  it('answers 429 with Retry-After and a plain-text body once the burst is spent', async () => {
    const { secret } = await keyWith(['files:read'], 'ws_default', { requestsPerSecond: 1, burst: 3 });

    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const response = await stack.api(someFile, { apiKey: secret });
      statuses.push(response.status);
      if (response.status === 429) limited ??= response;
      else await response.body?.cancel();
    }

    expect(statuses.slice(0, 3)).toEqual([404, 404, 404]);
    expect(limited?.status).toBe(429);
    expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited?.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(limited?.headers.get('x-request-id')).toBeTruthy();
  });

  it('keeps one key\'s limit from touching another key', async () => {
    const { secret: throttled } = await keyWith(['files:read'], 'ws_default', { requestsPerSecond: 1, burst: 1 });
    const { secret: other } = await keyWith(['files:read']);
    await stack.api(someFile, { apiKey: throttled });

    expect((await stack.api(someFile, { apiKey: throttled })).status).toBe(429);
    expect((await stack.api(someFile, { apiKey: other })).status).toBe(404);
  });
});

describe('routing and negotiation', () => {
  it('answers 404 NOT_FOUND for unknown paths, inside and outside the base path', async () => {
    for (const url of [`${stack.baseUrl}/nothing-here`, stack.baseUrl.replace('/api/public/v1', '/elsewhere')]) {
      const response = await fetch(url);
      expect(response.status).toBe(404);
      expect((await jsonOf(response)).error.code).toBe('NOT_FOUND');
    }
  });

  it('answers 405 with an Allow header for a known path and an unsupported method', async () => {
    const response = await stack.api('/openapi.json', { method: 'DELETE' });

    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect((await jsonOf(response)).error.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers 406 when Accept excludes JSON', async () => {
    const response = await stack.api(someFile, { headers: { accept: 'application/xml' } });

    expect(response.status).toBe(406);
    expect((await jsonOf(response)).error.code).toBe('NOT_ACCEPTABLE');
  });

  it('echoes a client X-Request-Id on success and error responses, and replaces an unusable one', async () => {
    const ok = await stack.api('/openapi.json', { headers: { 'x-request-id': 'client-abc-1' } });
    const notFound = await stack.api(someFile, { headers: { 'x-request-id': 'client-abc-2' } });
    const replaced = await stack.api('/openapi.json', { headers: { 'x-request-id': 'x'.repeat(200) } });

    expect(ok.headers.get('x-request-id')).toBe('client-abc-1');
    expect(notFound.headers.get('x-request-id')).toBe('client-abc-2');
    expect((await jsonOf(notFound)).error.requestId).toBe('client-abc-2');
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_/);
  });
});

describe('another workspace', () => {
  it('sees 404 for resources outside its workspace', async () => {
    const { secret } = await keyWith(['*'], 'ws_other');

    const response = await stack.api(someFile, { apiKey: secret });

    expect(response.status).toBe(404);
  });
});

describe('paperflow-admin against the running stack', () => {
  const run = promisify(execFile);
  const admin = (...args: string[]) =>
    run('node_modules/.bin/node', ['bin/paperflow-admin.mjs', ...args], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, PAPERFLOW_DATA_DIR: stack.dataDir },
    });

  it('creates a workspace and a key that then authenticates over HTTP, lists it without the secret, and revokes it', async () => {
    await admin('workspaces', 'create', '--name', 'cli', '--id', 'ws_cli');
    const created = JSON.parse((await admin('keys', 'create', '--workspace', 'ws_cli', '--name', 'cli', '--scopes', 'files:read')).stdout);

    expect((await stack.api(someFile, { apiKey: created.apiKey })).status).toBe(404);
    const listed = (await admin('keys', 'list', '--workspace', 'ws_cli')).stdout;
    expect(listed).toContain(created.keyId);
    expect(listed).not.toContain(created.apiKey);

    await admin('keys', 'revoke', created.keyId);
    expect((await stack.api(someFile, { apiKey: created.apiKey })).status).toBe(401);
  });

  it('exits non-zero with a message for an unknown workspace', async () => {
    await expect(admin('keys', 'create', '--workspace', 'ws_missing', '--name', 'x', '--scopes', '*')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('ws_missing'),
    });
  });
});
