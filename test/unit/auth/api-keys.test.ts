import { ConditionalCheckFailedException, DynamoDBClient, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { ApiKeyStore } from '../../../src/auth/api-key-store.ts';
import { ApiKeyService } from '../../../src/auth/api-keys.ts';
import { hashApiKey } from '../../../src/auth/api-key-secrets.ts';
import { UnauthorizedError } from '../../../src/platform/errors.ts';
import { WorkspaceStore } from '../../../src/workspaces/workspace-store.ts';

const documentClient = DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));
const dynamo = mockClient(documentClient);
const service = new ApiKeyService(new ApiKeyStore(documentClient, 'records'), new WorkspaceStore(documentClient, 'records'), () => new Date('2026-01-02T03:04:05Z'));
const secret = 'pf_live_0123456789abcdefghij';
const storedKey = {
  pk: `APIKEY#${hashApiKey(secret)}`,
  sk: 'APIKEY',
  keyId: 'key_1',
  workspaceId: 'ws_1',
  name: 'ci',
  scopes: ['files:read'],
  displayPrefix: 'pf_live_0123…',
  rateLimit: { requestsPerSecond: 5, burst: 10 },
  createdAt: '2026-01-01T00:00:00Z',
};

beforeEach(() => dynamo.reset());

describe('authenticating API keys', () => {
  it('looks the key up by its hash and returns the workspace, scopes and rate limit', async () => {
    dynamo.on(GetCommand, { Key: { pk: storedKey.pk, sk: 'APIKEY' } }).resolves({ Item: storedKey });

    const authenticated = await service.authenticate(`api-key ${secret}`);

    expect(authenticated).toEqual({
      principal: { workspaceId: 'ws_1', keyId: 'key_1', scopes: ['files:read'] },
      rateLimit: { requestsPerSecond: 5, burst: 10 },
    });
  });

  it.each([undefined, 'api-key', 'Basic abc', 'api-key not-a-paperflow-key'])('refuses %j without asking the table', async (header) => {
    await expect(service.authenticate(header)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('refuses unknown and revoked keys alike', async () => {
    dynamo.on(GetCommand).resolvesOnce({}).resolvesOnce({ Item: { ...storedKey, revokedAt: '2026-01-01T01:00:00Z' } });

    await expect(service.authenticate(`api-key ${secret}`)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(service.authenticate(`api-key ${secret}`)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('lets a throttled table surface as an error, not as a 401 that would hide the outage', async () => {
    dynamo.on(GetCommand).rejects(new ProvisionedThroughputExceededException({ message: 'slow down', $metadata: {} }));

    await expect(service.authenticate(`api-key ${secret}`)).rejects.toBeInstanceOf(ProvisionedThroughputExceededException);
  });
});

describe('creating and revoking keys', () => {
  it('stores only the hash and returns the secret once', async () => {
    dynamo.on(GetCommand).resolves({ Item: { id: 'ws_1', name: 'one', createdAt: 'x' } });
    dynamo.on(PutCommand).resolves({});

    const { secret: created, record } = await service.create({ workspaceId: 'ws_1', name: 'ci', scopes: ['files:read', 'files:write'] });

    const stored = dynamo.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(stored.pk).toBe(`APIKEY#${hashApiKey(created)}`);
    expect(JSON.stringify(stored)).not.toContain(created);
    expect(record).toMatchObject({ workspaceId: 'ws_1', scopes: ['files:read', 'files:write'], rateLimit: { requestsPerSecond: 25, burst: 50 } });
  });

  it('refuses unknown scopes and unknown workspaces', async () => {
    dynamo.on(GetCommand).resolves({});

    await expect(service.create({ workspaceId: 'ws_1', name: 'x', scopes: ['files:delete'] })).rejects.toThrow(/files:delete/);
    await expect(service.create({ workspaceId: 'ws_9', name: 'x', scopes: ['*'] })).rejects.toThrow(/ws_9/);
  });

  it('revokes by key id through the id index', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [storedKey] });
    dynamo.on(UpdateCommand).resolves({});

    expect(await service.revoke('key_1')).toBe(true);
    expect(dynamo.commandCalls(UpdateCommand)[0]!.args[0].input.Key).toEqual({ pk: storedKey.pk, sk: 'APIKEY' });
  });

  it('reports a revoke of an unknown key', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [] });

    expect(await service.revoke('key_404')).toBe(false);
  });

  it('keeps an existing bootstrap key on restart', async () => {
    dynamo.on(GetCommand).resolves({ Item: storedKey });

    const ensured = await service.ensure({ workspaceId: 'ws_1', name: 'bootstrap', scopes: ['*'], secret });

    expect(ensured.keyId).toBe('key_1');
    expect(dynamo.commandCalls(PutCommand)).toHaveLength(0);
  });

  it('treats a concurrent key write as a conflict, not a silent overwrite', async () => {
    dynamo.on(GetCommand).resolves({ Item: { id: 'ws_1', name: 'one', createdAt: 'x' } });
    dynamo.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'exists', $metadata: {} }));

    await expect(service.create({ workspaceId: 'ws_1', name: 'ci', scopes: ['*'] })).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  });
});
