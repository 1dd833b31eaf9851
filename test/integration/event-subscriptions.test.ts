import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoDocumentClient } from '../../src/infrastructure/dynamodb-client.ts';
import { paperflowConfiguration } from '../../src/composition/configuration.ts';
import { signingSecretOf } from '../../src/composition/webhooks.ts';
import { ExtractionClient, workspaceKey } from '../support/extraction-client.ts';
import { jsonOf, startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { recordsTable } from '../support/records-table.ts';

// The subscription operations over HTTP against the embedded stack: the secret shown once and stored
// only encrypted, validation details, listing with exact totals, the quota, workspace isolation.

let stack: StackUnderTest;
let client: ExtractionClient;
let otherWorkspace: ExtractionClient;

const path = '/event-subscriptions';
const send = (method: string, body: unknown): RequestInit => ({ method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

function aSubscription(overrides: Record<string, unknown> = {}) {
  return { name: 'Order system', endpointUrl: 'https://hooks.example.com/paperflow', eventTypes: ['document-insights.extraction.completed'], ...overrides };
}

const listPage = (as: ExtractionClient, query: string) => as.json(`${path}${query ? `?${query}` : ''}`);
const create = (as: ExtractionClient, body: unknown = aSubscription()) => as.json(path, send('POST', body));

beforeAll(async () => {
  delete process.env.PAPERFLOW_ALLOW_PRIVATE_URLS;
  stack = await startStackUnderTest();
  client = new ExtractionClient(stack, await workspaceKey('ws_subscriptions'));
  otherWorkspace = new ExtractionClient(stack, await workspaceKey('ws_subscriptions_other'));
});

afterAll(async () => {
  await stack?.stop();
});

describe('create', () => {
  it('answers 201 with an active subscription and its signing secret', async () => {
    const body = aSubscription({ eventTypes: ['workflow.run.completed', 'workflow.run.failed'], filters: { workflowId: 'wf_01JZ0000000000000000000000' } });

    const created = await create(client, body);

    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^sub_[0-9A-HJKMNP-TV-Z]{26}$/),
      ...body,
      status: 'active',
      createdAt: expect.any(String),
      updatedAt: created.body.createdAt,
      signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(created.body.signingSecret.slice(6), 'base64')).toHaveLength(32);
  });

  it('stores the secret only encrypted, and decrypts it for the delivery side', async () => {
    const created = await create(client);

    const { Item } = await dynamoDocumentClient().send(
      new GetCommand({ TableName: paperflowConfiguration().resources.recordsTableName(), Key: { pk: `SUB#${created.body.id}`, sk: 'SUBSCRIPTION' } }),
    );

    expect(Item).toBeDefined();
    expect(JSON.stringify(Item)).not.toContain(created.body.signingSecret);
    expect(JSON.stringify(Item)).not.toContain(created.body.signingSecret.slice(6, 30));
    // The embedded stack wraps data keys with its key file; against moto or LocalStack (which serve
    // KMS) the stack creates a KMS key and uses it, as deployed.
    const keyProvider = process.env.PAPERFLOW_TEST_EXTERNAL_ENDPOINT ? 'kms' : 'local-file';
    expect(Item!.secretCiphertext).toMatchObject({ keyProvider, ciphertext: expect.any(String), encryptedDataKey: expect.any(String) });
    expect(await signingSecretOf('ws_subscriptions', created.body.id)).toBe(created.body.signingSecret);
    await expect(signingSecretOf('ws_subscriptions_other', created.body.id)).rejects.toThrow('does not exist');
  });

  it('gives every subscription its own secret', async () => {
    const [first, second] = await Promise.all([create(client), create(client)]);

    expect(first.body.signingSecret).not.toBe(second.body.signingSecret);
  });
});

describe('the secret is never shown again', () => {
  it('is absent from get, list and update', async () => {
    const created = await create(client, aSubscription({ name: 'secret keeper' }));
    const secret = created.body.signingSecret as string;

    const read = await client.json(`${path}/${created.body.id}`);
    const listed = await client.json(`${path}?name=secret%20keeper`);
    const updated = await client.json(`${path}/${created.body.id}`, send('PATCH', { name: 'secret keeper 2' }));

    expect(read.status).toBe(200);
    expect(updated.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
    for (const body of [read.body, listed.body, updated.body]) {
      expect(JSON.stringify(body)).not.toContain(secret);
      expect(JSON.stringify(body)).not.toContain('signingSecret');
    }
    expect(read.body).toEqual({ ...created.body, signingSecret: undefined });
  });
});

describe('update', () => {
  it('changes what was sent, keeps the rest, and moves updatedAt', async () => {
    const created = await create(client, aSubscription({ filters: { workflowId: 'wf_01JZ0000000000000000000001' } }));

    const paused = await client.json(`${path}/${created.body.id}`, send('PATCH', { status: 'paused', eventTypes: ['workflow.run.failed'], filters: {} }));
    const resumed = await client.json(`${path}/${created.body.id}`, send('PATCH', { status: 'active', endpointUrl: 'https://other.example.com/h' }));

    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ status: 'paused', eventTypes: ['workflow.run.failed'], filters: {}, name: 'Order system', createdAt: created.body.createdAt });
    expect(paused.body.updatedAt > created.body.updatedAt).toBe(true);
    expect(resumed.body).toMatchObject({ status: 'active', endpointUrl: 'https://other.example.com/h', eventTypes: ['workflow.run.failed'] });
    expect((await client.json(`${path}/${created.body.id}`)).body).toEqual(resumed.body);
  });

  it.each(['signingSecret', 'id', 'createdAt'])('refuses %s in the body with 422 and changes nothing', async (field) => {
    const created = await create(client);

    const response = await client.json(`${path}/${created.body.id}`, send('PATCH', { name: 'changed', [field]: 'whsec_mine' }));

    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field, issue: 'is not an accepted field' }] });
    expect((await client.json(`${path}/${created.body.id}`)).body.name).toBe('Order system');
    expect(await signingSecretOf('ws_subscriptions', created.body.id)).toBe(created.body.signingSecret);
  });

  it('refuses an empty change with 422', async () => {
    const created = await create(client);

    const response = await client.json(`${path}/${created.body.id}`, send('PATCH', {}));

    expect(response.status).toBe(422);
    expect(response.body.error.details).toEqual([{ field: '', issue: 'must change at least one of name, endpointUrl, eventTypes, filters, status' }]);
  });
});

describe('validation (422 VALIDATION_FAILED with details)', () => {
  it.each([
    ['endpointUrl over http', { endpointUrl: 'http://hooks.example.com/h' }, 'endpointUrl', 'must use https'],
    ['endpointUrl with credentials', { endpointUrl: 'https://me:pw@hooks.example.com/h' }, 'endpointUrl', 'must not contain user credentials'],
    ['endpointUrl with a fragment', { endpointUrl: 'https://hooks.example.com/h#x' }, 'endpointUrl', 'must not contain a fragment'],
    ['endpointUrl on loopback', { endpointUrl: 'https://127.0.0.1:8443/h' }, 'endpointUrl', 'must not point to a private, loopback or reserved address'],
    ['endpointUrl on a private address', { endpointUrl: 'https://[fd00::1]/h' }, 'endpointUrl', 'must not point to a private, loopback or reserved address'],
    ['a name over 128 characters', { name: 'n'.repeat(129) }, 'name', 'must be at most 128 characters'],
    ['a blank name', { name: ' ' }, 'name', 'must not be blank'],
    ['no event types', { eventTypes: [] }, 'eventTypes', 'must list at least one event type'],
    ['an event type listed twice', { eventTypes: ['workflow.run.failed', 'workflow.run.failed'] }, 'eventTypes[1]', 'is listed twice'],
    ['a workflowId that is not a string', { filters: { workflowId: 7 } }, 'filters.workflowId', 'Invalid input: expected string, received number'],
    ['another filter', { filters: { labels: {} } }, 'filters.labels', 'is not an accepted field'],
    ['a signingSecret of its own', { signingSecret: 'whsec_mine' }, 'signingSecret', 'is not an accepted field'],
  ])('refuses %s', async (_case, overrides, field, issue) => {
    const response = await create(client, aSubscription(overrides));

    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field, issue }] });
  });

  it('refuses an unknown event type naming its position', async () => {
    const response = await create(client, aSubscription({ eventTypes: ['document-insights.extraction.completed', 'extraction.done'] }));

    expect(response.status).toBe(422);
    expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toEqual(['eventTypes[1]']);
  });
});

describe('list', () => {
  let listClient: ExtractionClient;
  const made: { id: string; name: string; status: string; createdAt: string }[] = [];

  beforeAll(async () => {
    listClient = new ExtractionClient(stack, await workspaceKey('ws_subscriptions_list'));
    const bodies = [
      aSubscription({ name: 'Billing ORDERS' }),
      aSubscription({ name: 'Workflow failures', eventTypes: ['workflow.run.failed'] }),
      aSubscription({ name: 'orders archive', eventTypes: ['workflow.run.failed', 'document-insights.extraction.completed'] }),
      aSubscription({ name: 'Rejections', eventTypes: ['document-insights.extraction.rejected'] }),
      aSubscription({ name: 'Everything else' }),
    ];
    for (const body of bodies) {
      const created = await create(listClient, body);
      expect(created.status).toBe(201);
      made.push(created.body);
    }
    await listClient.json(`${path}/${made[1]!.id}`, send('PATCH', { status: 'paused' }));
    await listClient.json(`${path}/${made[0]!.id}`, send('PATCH', { name: 'Billing ORDERS v2' }));
  });

  const idsOf = (body: { data: { id: string }[] }) => body.data.map((item) => made.findIndex((subscription) => subscription.id === item.id) + 1);

  it('lists newest first with exact totals', async () => {
    const { status, body } = await listPage(listClient, ``);

    expect(status).toBe(200);
    expect(idsOf(body)).toEqual([5, 4, 3, 2, 1]);
    expect(body.pageInfo).toEqual({ page: 0, size: 50, totalItems: 5, totalPages: 1 });
  });

  it('pages with exact totals', async () => {
    const first = await listPage(listClient, 'size=2&sort=asc');
    const last = await listPage(listClient, 'size=2&sort=asc&page=2');
    const beyond = await listPage(listClient, 'size=2&page=3');

    expect(idsOf(first.body)).toEqual([1, 2]);
    expect(idsOf(last.body)).toEqual([5]);
    expect(beyond.body).toEqual({ data: [], pageInfo: { page: 3, size: 2, totalItems: 5, totalPages: 3 } });
  });

  it('filters by name (case-insensitive substring), status and event type, with totals of the filtered list', async () => {
    const byName = await listPage(listClient, 'name=orders');
    const paused = await listPage(listClient, 'status=paused');
    const active = await listPage(listClient, 'status=active&size=1');
    const byType = await listPage(listClient, 'eventType=workflow.run.failed');

    expect(idsOf(byName.body)).toEqual([3, 1]);
    expect(idsOf(paused.body)).toEqual([2]);
    expect(active.body.pageInfo).toEqual({ page: 0, size: 1, totalItems: 4, totalPages: 4 });
    expect(idsOf(byType.body)).toEqual([3, 2]);
  });

  it('sorts by updatedAt', async () => {
    const { body } = await listPage(listClient, 'sortBy=updatedAt');

    expect(idsOf(body).slice(0, 2)).toEqual([1, 2]);
  });

  it('filters by a creation window', async () => {
    const from = encodeURIComponent(made[1]!.createdAt);
    const to = encodeURIComponent(made[3]!.createdAt);

    const { body } = await listPage(listClient, `from=${from}&to=${to}&sort=asc`);

    expect(idsOf(body)).toEqual([2, 3, 4]);
    expect(body.pageInfo.totalItems).toBe(3);
  });

  it.each(['status=deleted', 'eventType=x', 'sortBy=name', 'from=yesterday', 'size=0', 'unknown=1'])('answers 400 to %s', async (query) => {
    expect((await listPage(listClient, query)).status).toBe(400);
  });
});

describe('quota', () => {
  it('answers 409 CONFLICT to the 26th create, and a delete frees a slot', async () => {
    const quotaClient = new ExtractionClient(stack, await workspaceKey('ws_subscriptions_quota'));
    const ids: string[] = [];
    for (let index = 0; index < 25; index += 1) {
      const created = await create(quotaClient, aSubscription({ name: `Hook ${index}` }));
      expect(created.status).toBe(201);
      ids.push(created.body.id);
    }

    const refused = await create(quotaClient);
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe('CONFLICT');
    expect((await listPage(quotaClient, '')).body.pageInfo.totalItems).toBe(25);

    expect((await quotaClient.request(`${path}/${ids[0]}`, { method: 'DELETE' })).status).toBe(204);
    expect((await create(quotaClient)).status).toBe(201);
    expect((await create(quotaClient)).status).toBe(409);
  });

  it('lets only the slots left through when creates race', async () => {
    const racingClient = new ExtractionClient(stack, await workspaceKey('ws_subscriptions_race'));
    for (let index = 0; index < 22; index += 1) expect((await create(racingClient)).status).toBe(201);

    const statuses = (await Promise.all(Array.from({ length: 8 }, () => create(racingClient)))).map((response) => response.status);

    expect(statuses.filter((status) => status === 201)).toHaveLength(3);
    expect(statuses.filter((status) => status === 409)).toHaveLength(5);
    expect((await listPage(racingClient, '')).body.pageInfo.totalItems).toBe(25);
  });

  it('a slot whose release failed after the delete is freed by the next create: the workspace still reaches 25', async () => {
    const workspaceId = 'ws_subscriptions_leak';
    const leakClient = new ExtractionClient(stack, await workspaceKey(workspaceId));
    const ids: string[] = [];
    for (let index = 0; index < 25; index += 1) ids.push((await create(leakClient, aSubscription({ name: `Hook ${index}` }))).body.id);
    expect((await leakClient.request(`${path}/${ids[0]}`, { method: 'DELETE' })).status).toBe(204);
    // What a release that failed after the delete leaves: the deleted subscription's slot still taken
    // (an hour ago, past the grace that protects creates still writing).
    const { client: documents, tableName } = recordsTable();
    await documents.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: `WS#${workspaceId}#SUBQUOTA`, sk: 'QUOTA' },
        UpdateExpression: 'SET slots.#id = :takenAt',
        ExpressionAttributeNames: { '#id': ids[0]! },
        ExpressionAttributeValues: { ':takenAt': new Date(Date.now() - 3_600_000).toISOString() },
      }),
    );

    const replacement = await create(leakClient);

    expect(replacement.status).toBe(201);
    expect((await listPage(leakClient, '')).body.pageInfo.totalItems).toBe(25);
    const { Item } = await documents.send(new GetCommand({ TableName: tableName, Key: { pk: `WS#${workspaceId}#SUBQUOTA`, sk: 'QUOTA' }, ConsistentRead: true }));
    expect(Object.keys(Item!.slots).sort()).toEqual([...ids.slice(1), replacement.body.id].sort());
    expect((await create(leakClient)).status).toBe(409);
  });

  it('counts each workspace on its own', async () => {
    expect((await create(otherWorkspace)).status).toBe(201);
  });
});

describe('workspace isolation', () => {
  it('answers 404 to every operation on another workspace\'s subscription, and lists none of it', async () => {
    const theirs = await create(otherWorkspace, aSubscription({ name: 'theirs only' }));
    const url = `${path}/${theirs.body.id}`;

    const read = await client.json(url);
    const patched = await client.json(url, send('PATCH', { status: 'paused' }));
    const deleted = await client.request(url, { method: 'DELETE' });
    const listed = await client.json(`${path}?name=theirs%20only`);

    expect([read.status, patched.status, deleted.status]).toEqual([404, 404, 404]);
    expect(read.body.error.code).toBe('NOT_FOUND');
    expect(listed.body).toEqual({ data: [], pageInfo: { page: 0, size: 50, totalItems: 0, totalPages: 0 } });
    const untouched = await otherWorkspace.json(url);
    expect(untouched.status).toBe(200);
    expect(untouched.body).toMatchObject({ status: 'active', updatedAt: theirs.body.updatedAt });
  });

  it.each(['sub_1', 'sub_01JZ0000000000000000000000', 'ext_01JZ0000000000000000000000', 'x'.repeat(300)])('answers 404 for the id %s', async (id) => {
    const url = `${path}/${id}`;

    expect((await client.json(url)).status).toBe(404);
    expect((await client.json(url, send('PATCH', { name: 'x' }))).status).toBe(404);
    expect((await client.request(url, { method: 'DELETE' })).status).toBe(404);
  });

  it('answers 404 to a second delete', async () => {
    const created = await create(client);

    expect((await client.request(`${path}/${created.body.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await client.request(`${path}/${created.body.id}`, { method: 'DELETE' })).status).toBe(404);
    expect((await client.json(`${path}/${created.body.id}`)).status).toBe(404);
  });
});

describe('scopes', () => {
  it('needs subscriptions:write to create and subscriptions:read to read', async () => {
    const reader = new ExtractionClient(stack, await workspaceKey('ws_subscriptions', ['subscriptions:read']));
    const writer = new ExtractionClient(stack, await workspaceKey('ws_subscriptions', ['subscriptions:write']));

    expect((await create(reader)).status).toBe(403);
    expect((await reader.json(path)).status).toBe(200);
    expect((await writer.json(path)).status).toBe(403);
    expect((await create(writer)).status).toBe(201);
  });
});

describe('rotate-secret and recover (extensions)', () => {
  const rotate = (as: ExtractionClient, id: string, body?: unknown) => as.json(`${path}/${id}/rotate-secret`, body === undefined ? { method: 'POST' } : send('POST', body));
  const recover = (as: ExtractionClient, id: string, body: unknown) => as.json(`${path}/${id}/recover`, send('POST', body));

  it('answers a rotation with the new secret once, the old one kept encrypted until its overlap ends', async () => {
    const created = await create(client);
    const before = Date.now();

    const rotated = await rotate(client, created.body.id);
    const after = Date.now();
    const { Item } = await dynamoDocumentClient().send(
      new GetCommand({ TableName: paperflowConfiguration().resources.recordsTableName(), Key: { pk: `SUB#${created.body.id}`, sk: 'SUBSCRIPTION' } }),
    );
    const read = await client.json(`${path}/${created.body.id}`);

    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ subscriptionId: created.body.id, signingSecret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/), previousSecretExpiresAt: expect.any(String) });
    expect(rotated.body.signingSecret).not.toBe(created.body.signingSecret);
    // 24 h from the rotation, on a whole second (a delivery's signed time is whole seconds).
    const expiresAt = Date.parse(rotated.body.previousSecretExpiresAt);
    expect(expiresAt % 1000).toBe(0);
    expect(expiresAt).toBeGreaterThan(before - 1000 + 24 * 3600_000);
    expect(expiresAt).toBeLessThanOrEqual(after + 24 * 3600_000);
    for (const secret of [created.body.signingSecret, rotated.body.signingSecret]) {
      expect(JSON.stringify(Item)).not.toContain(secret.slice(6, 30));
      expect(JSON.stringify(read.body)).not.toContain(secret.slice(6, 30));
    }
    expect(Item).toMatchObject({ secretCiphertext: { ciphertext: expect.any(String) }, previousSecretCiphertext: { ciphertext: expect.any(String) }, previousSecretExpiresAt: rotated.body.previousSecretExpiresAt });
    expect(await signingSecretOf('ws_subscriptions', created.body.id)).toBe(rotated.body.signingSecret);
  });

  it('removes the old secret at once with overlapHours 0', async () => {
    const created = await create(client);

    const rotated = await rotate(client, created.body.id, { overlapHours: 0 });
    const { Item } = await dynamoDocumentClient().send(
      new GetCommand({ TableName: paperflowConfiguration().resources.recordsTableName(), Key: { pk: `SUB#${created.body.id}`, sk: 'SUBSCRIPTION' } }),
    );

    expect(rotated.body.previousSecretExpiresAt).toBeNull();
    expect(Item).not.toHaveProperty('previousSecretCiphertext');
    expect(Item).not.toHaveProperty('previousSecretExpiresAt');
  });

  it.each([
    [{ overlapHours: -1 }, 'overlapHours', 'must be 0 or more'],
    [{ overlapHours: 169 }, 'overlapHours', 'must be at most 168 (a week)'],
    [{ overlapHours: '24' }, 'overlapHours', expect.any(String)],
    [{ signingSecret: 'whsec_mine' }, 'signingSecret', 'is not an accepted field'],
  ])('refuses the rotation %j with 422 naming the field, and keeps the secret', async (body, field, issue) => {
    const created = await create(client);

    const response = await rotate(client, created.body.id, body);

    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field, issue }] });
    expect(await signingSecretOf('ws_subscriptions', created.body.id)).toBe(created.body.signingSecret);
  });

  it.each([
    [{}, 'since', expect.any(String)],
    [{ since: 'yesterday' }, 'since', expect.any(String)],
    [{ since: '2026-03-01T00:00:00' }, 'since', expect.any(String)],
    [{ since: '2026-03-01T00:00:00Z', limit: 5 }, 'limit', 'is not an accepted field'],
  ])('refuses the recover %j with 422 naming the field', async (body, field, issue) => {
    const created = await create(client);

    const response = await recover(client, created.body.id, body);

    expect(response.status).toBe(422);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_FAILED', details: [{ field, issue }] });
  });

  it('answers 404 for another workspace\'s subscription, and 409 to a recover while paused', async () => {
    const theirs = await create(otherWorkspace);
    const mine = await create(client);
    await client.json(`${path}/${mine.body.id}`, send('PATCH', { status: 'paused' }));

    const rotated = await rotate(client, theirs.body.id);
    const recovered = await recover(client, theirs.body.id, { since: '2026-01-01T00:00:00Z' });
    const paused = await recover(client, mine.body.id, { since: '2026-01-01T00:00:00Z' });

    expect([rotated.status, recovered.status]).toEqual([404, 404]);
    expect(rotated.body.error.code).toBe('NOT_FOUND');
    expect(paused.status).toBe(409);
    expect(await signingSecretOf('ws_subscriptions_other', theirs.body.id)).toBe(theirs.body.signingSecret);
  });

  it('needs subscriptions:write for both', async () => {
    const created = await create(client);
    const reader = new ExtractionClient(stack, await workspaceKey('ws_subscriptions', ['subscriptions:read', 'events:read']));

    expect((await rotate(reader, created.body.id)).status).toBe(403);
    expect((await recover(reader, created.body.id, { since: '2026-01-01T00:00:00Z' })).status).toBe(403);
  });

  it('is marked as an extension in the OpenAPI document', async () => {
    const document = await jsonOf(await stack.api('/openapi.json'));

    for (const operation of [document.paths[`${path}/{subscriptionId}/rotate-secret`].post, document.paths[`${path}/{subscriptionId}/recover`].post]) {
      expect(operation).toMatchObject({ 'x-paperflow-extension': true, description: expect.stringMatching(/^Extension beyond public API v1: /), 'x-paperflow-scope': 'subscriptions:write' });
    }
    expect(document.paths[path].post).not.toHaveProperty('x-paperflow-extension');
  });
});
