import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoDbApiKeyStore } from '../../../src/auth/aws/dynamodb-api-key-store.ts';
import type { ApiKeyRecord } from '../../../src/auth/api-key-store.ts';
import { documentClient } from '../../support/mocked-records.ts';

// The records table's item layout of API keys: what the key service's unit tests (in memory) leave out.

const dynamo = mockClient(DynamoDBDocumentClient);
const store = () => new DynamoDbApiKeyStore(documentClient(), 'records');
const record: ApiKeyRecord = {
  keyId: 'key_1',
  workspaceId: 'ws_1',
  name: 'ci',
  scopes: ['files:read'],
  displayPrefix: 'pf_live_0123…',
  rateLimit: { requestsPerSecond: 5, burst: 10 },
  createdAt: '2026-01-01T00:00:00Z',
};
const storedItem = { pk: 'APIKEY#abc', sk: 'APIKEY', gsi1pk: 'WS#ws_1#APIKEYS', gsi1sk: 'x', gsi2pk: 'APIKEYID#key_1', gsi2sk: 'APIKEY', ...record };

beforeEach(() => dynamo.reset());

describe('DynamoDbApiKeyStore', () => {
  it('stores the key under its hash, with the indexes that list and revoke it, never overwriting', async () => {
    dynamo.on(PutCommand).resolves({});

    await store().put(record, 'abc');

    expect(dynamo.commandCalls(PutCommand)[0]!.args[0].input).toMatchObject({
      Item: { pk: 'APIKEY#abc', sk: 'APIKEY', gsi1pk: 'WS#ws_1#APIKEYS', gsi1sk: '2026-01-01T00:00:00Z#key_1', gsi2pk: 'APIKEYID#key_1', keyId: 'key_1' },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
  });

  it('lets a concurrent write of the same hash fail rather than overwrite', async () => {
    dynamo.on(PutCommand).rejects(new ConditionalCheckFailedException({ message: 'exists', $metadata: {} }));

    await expect(store().put(record, 'abc')).rejects.toBeInstanceOf(ConditionalCheckFailedException);
  });

  it('reads an item back as the record, without table attributes, and gives old keys the default rate limit', async () => {
    const { rateLimit: _rateLimit, ...withoutRateLimit } = storedItem;
    dynamo.on(GetCommand).resolvesOnce({ Item: storedItem }).resolvesOnce({ Item: withoutRateLimit });

    expect(await store().findBySecretHash('abc')).toEqual(record);
    expect((await store().findBySecretHash('abc'))!.rateLimit).toEqual({ requestsPerSecond: 25, burst: 50 });
  });

  it('refuses an item that is not an API key rather than pass it on as one', async () => {
    dynamo.on(GetCommand).resolves({ Item: { ...storedItem, scopes: 'files:read' } });

    await expect(store().findBySecretHash('abc')).rejects.toThrow(/scopes/);
  });

  it('revokes through the id index, keeping the first revocation time', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [{ pk: 'APIKEY#abc', sk: 'APIKEY' }] });
    dynamo.on(UpdateCommand).resolves({});

    expect(await store().revoke('key_1', '2026-02-01T00:00:00Z')).toBe(true);
    expect(dynamo.commandCalls(QueryCommand)[0]!.args[0].input).toMatchObject({ IndexName: 'gsi2', ExpressionAttributeValues: { ':id': 'APIKEYID#key_1' } });
    expect(dynamo.commandCalls(UpdateCommand)[0]!.args[0].input).toMatchObject({ Key: { pk: 'APIKEY#abc', sk: 'APIKEY' }, UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)' });
  });

  it('reports a revoke of an unknown key', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [] });

    expect(await store().revoke('key_404', '2026-02-01T00:00:00Z')).toBe(false);
    expect(dynamo.commandCalls(UpdateCommand)).toHaveLength(0);
  });
});
