import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { queryAllItems } from '../../infrastructure/dynamodb-queries.ts';
import { defaultRateLimit, type ApiKeyRecord, type ApiKeyStore } from '../api-key-store.ts';
import { scopes } from '../scopes.ts';

// Stored under the hash of the secret, so authenticating a request is one GetItem, and a copy of the
// table reveals no usable key. Two indexes serve listing per workspace and revoking by key id.
const keyByHash = (secretHash: string) => ({ pk: `APIKEY#${secretHash}`, sk: 'APIKEY' });

const apiKeyItem = z.object({
  keyId: z.string(),
  workspaceId: z.string(),
  name: z.string(),
  scopes: z.array(z.enum([...scopes, '*'])),
  displayPrefix: z.string(),
  // Keys stored before per-key limits existed have none: they get the default.
  rateLimit: z.optional(z.object({ requestsPerSecond: z.number(), burst: z.number() })),
  createdAt: z.string(),
  revokedAt: z.optional(z.string()),
  usageIdentifierKey: z.optional(z.string()),
});

/** The key attributes of an item found through an index. */
const storedKey = z.object({ pk: z.string(), sk: z.string() });

function toApiKeyRecord(item: Record<string, unknown>): ApiKeyRecord {
  const { rateLimit, revokedAt, usageIdentifierKey, ...key } = apiKeyItem.parse(item);
  return {
    ...key,
    rateLimit: rateLimit ?? defaultRateLimit,
    ...(revokedAt ? { revokedAt } : {}),
    ...(usageIdentifierKey ? { usageIdentifierKey } : {}),
  };
}

export class DynamoDbApiKeyStore implements ApiKeyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(record: ApiKeyRecord, secretHash: string): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keyByHash(secretHash),
          ...record,
          gsi1pk: `WS#${record.workspaceId}#APIKEYS`,
          gsi1sk: `${record.createdAt}#${record.keyId}`,
          gsi2pk: `APIKEYID#${record.keyId}`,
          gsi2sk: 'APIKEY',
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async findBySecretHash(secretHash: string): Promise<ApiKeyRecord | undefined> {
    const { Item } = await this.client.send(new GetCommand({ TableName: this.tableName, Key: keyByHash(secretHash) }));
    return Item ? toApiKeyRecord(Item) : undefined;
  }

  async listByWorkspace(workspaceId: string): Promise<ApiKeyRecord[]> {
    const items = await queryAllItems(this.client, {
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :keys',
      ExpressionAttributeValues: { ':keys': `WS#${workspaceId}#APIKEYS` },
    });
    return items.map(toApiKeyRecord);
  }

  async revoke(keyId: string, revokedAt: string): Promise<boolean> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :id',
        ExpressionAttributeValues: { ':id': `APIKEYID#${keyId}` },
        ProjectionExpression: 'pk, sk',
      }),
    );
    const found = Items?.[0];
    if (!found) return false;
    const { pk, sk } = storedKey.parse(found);
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk, sk },
        UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
        ExpressionAttributeValues: { ':now': revokedAt },
      }),
    );
    return true;
  }
}
