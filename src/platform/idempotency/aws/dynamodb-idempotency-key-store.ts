import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { callDownstream } from '../../downstream-calls.ts';
import type { ClaimedKey, CompletedKey, IdempotencyKeyRecord, IdempotencyKeyStore } from '../idempotency-key-store.ts';
import type { IdempotencyKeyScope } from '../sealed-responses.ts';

// One item per workspace and key in the records table: pk `WS#<ws>#IDEMPOTENCY#<sha256 of the key>`,
// sk `IDEMPOTENCY_KEY`; the key itself is never stored. `expiresAt` is the table's TTL attribute (epoch
// seconds); DynamoDB removes expired items up to days late, so every read and claim also compares it.
const keyOf = (scope: IdempotencyKeyScope) => ({ pk: `WS#${scope.workspaceId}#IDEMPOTENCY#${scope.keyDigest}`, sk: 'IDEMPOTENCY_KEY' });

const itemSchema = z.union([
  z.object({
    state: z.literal('IN_PROGRESS'),
    claimToken: z.string(),
    fingerprint: z.optional(z.string()),
    leaseExpiresAt: z.number(),
    expiresAt: z.number(),
  }),
  z.object({
    state: z.literal('COMPLETED'),
    fingerprint: z.string(),
    response: z.object({ iv: z.string(), ciphertext: z.string(), authTag: z.string() }),
    expiresAt: z.number(),
  }),
]);

const toSeconds = (milliseconds: number) => Math.ceil(milliseconds / 1000);

export class DynamoDbIdempotencyKeyStore implements IdempotencyKeyStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async claim(scope: IdempotencyKeyScope, claim: ClaimedKey, now: number): Promise<boolean> {
    return callDownstream('DynamoDB PutItem (idempotency key)', () =>
      conditionally(() =>
        this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...keyOf(scope), workspaceId: scope.workspaceId, ...claim, expiresAt: toSeconds(claim.expiresAt) },
            ConditionExpression: 'attribute_not_exists(pk) OR expiresAt <= :nowSeconds OR (#state = :inProgress AND leaseExpiresAt <= :now)',
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: { ':nowSeconds': Math.floor(now / 1000), ':now': now, ':inProgress': 'IN_PROGRESS' },
          }),
        ),
      ),
    );
  }

  async get(scope: IdempotencyKeyScope, now: number): Promise<IdempotencyKeyRecord | undefined> {
    const { Item: item } = await callDownstream('DynamoDB GetItem (idempotency key)', () =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: keyOf(scope), ConsistentRead: true })),
    );
    if (!item) return undefined;
    const record = itemSchema.parse(item);
    if (record.expiresAt <= Math.floor(now / 1000)) return undefined;
    return { ...record, expiresAt: record.expiresAt * 1000 };
  }

  async complete(scope: IdempotencyKeyScope, claimToken: string, completed: CompletedKey): Promise<boolean> {
    return callDownstream('DynamoDB PutItem (idempotency key answer)', () =>
      conditionally(() =>
        this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...keyOf(scope), workspaceId: scope.workspaceId, ...completed, expiresAt: toSeconds(completed.expiresAt) },
            ConditionExpression: 'claimToken = :claimToken',
            ExpressionAttributeValues: { ':claimToken': claimToken },
          }),
        ),
      ),
    );
  }

  async release(scope: IdempotencyKeyScope, claimToken: string): Promise<void> {
    await callDownstream('DynamoDB DeleteItem (idempotency key)', () =>
      conditionally(() =>
        this.client.send(
          new DeleteCommand({
            TableName: this.tableName,
            Key: keyOf(scope),
            ConditionExpression: 'claimToken = :claimToken',
            ExpressionAttributeValues: { ':claimToken': claimToken },
          }),
        ),
      ),
    );
  }
}

/** True when the write happened, false when its condition did not hold. */
async function conditionally(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}
