import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { queryAllItems } from '../infrastructure/dynamodb-queries.ts';
import type { GrantedScope } from './scopes.ts';

export interface RateLimit {
  requestsPerSecond: number;
  burst: number;
}

/** DESIGN.md defaults: 25 requests/s with a burst of 50, per key. */
export const defaultRateLimit: RateLimit = { requestsPerSecond: 25, burst: 50 };

export interface ApiKeyRecord {
  keyId: string;
  workspaceId: string;
  name: string;
  scopes: GrantedScope[];
  /** The first characters of the key, to recognise it in listings. */
  displayPrefix: string;
  rateLimit: RateLimit;
  createdAt: string;
  revokedAt?: string;
  /** Deployed only: the API Gateway API key value the authorizer returns as `usageIdentifierKey`. */
  usageIdentifierKey?: string;
}

// Stored under the hash of the secret, so authenticating a request is one GetItem, and a copy of the
// table reveals no usable key. Two indexes serve listing per workspace and revoking by key id.
const keyByHash = (secretHash: string) => ({ pk: `APIKEY#${secretHash}`, sk: 'APIKEY' });

export class ApiKeyStore {
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

  /** Marks the key revoked; returns false when no such key exists. */
  async revoke(keyId: string, revokedAt: string): Promise<boolean> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: 'gsi2',
        KeyConditionExpression: 'gsi2pk = :id',
        ExpressionAttributeValues: { ':id': `APIKEYID#${keyId}` },
      }),
    );
    const item = Items?.[0];
    if (!item) return false;
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
        ExpressionAttributeValues: { ':now': revokedAt },
      }),
    );
    return true;
  }
}

function toApiKeyRecord(item: Record<string, unknown>): ApiKeyRecord {
  return {
    keyId: item.keyId as string,
    workspaceId: item.workspaceId as string,
    name: item.name as string,
    scopes: item.scopes as GrantedScope[],
    displayPrefix: item.displayPrefix as string,
    rateLimit: (item.rateLimit as RateLimit | undefined) ?? defaultRateLimit,
    createdAt: item.createdAt as string,
    ...(item.revokedAt ? { revokedAt: item.revokedAt as string } : {}),
    ...(item.usageIdentifierKey ? { usageIdentifierKey: item.usageIdentifierKey as string } : {}),
  };
}
