import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod/mini';
import { filesBucket } from '../../infrastructure/resource-definitions.ts';
import { callDownstream } from '../../platform/downstream-calls.ts';
import type { BlockedReason, FileRecord, FileRecordStore } from '../file-records.ts';

// Key design: one item per file under pk `WS#<workspaceId>#FILE#<fileId>`, sk `FILE`. Reading a file
// is a GetItem on the caller's workspace and the id, so another workspace's file is simply absent
// (404) with no extra check to forget. gsi1 (`WS#<workspaceId>#FILES`, `<createdAt>#<fileId>`)
// lists a workspace's files newest last. `expiresAt` (the table's TTL attribute) drops the record
// when the lifecycle rule drops its object.
const fileKey = (workspaceId: string, fileId: string) => ({ pk: `WS#${workspaceId}#FILE#${fileId}`, sk: 'FILE' });

const secondsPerDay = 86_400;

const fileItem = z.object({
  fileId: z.string(),
  workspaceId: z.string(),
  fileName: z.string(),
  mimeType: z.string(),
  size: z.number(),
  sha256: z.optional(z.string()),
  status: z.enum(['ready', 'pending_upload', 'blocked']),
  blockedReason: z.optional(
    z.object({ code: z.enum(['UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE', 'VALIDATION_FAILED']), message: z.string() }),
  ),
  createdAt: z.string(),
  objectKey: z.string(),
});

function toFileRecord(item: Record<string, unknown>): FileRecord {
  const { sha256, blockedReason, ...record } = fileItem.parse(item);
  return { ...record, ...(sha256 ? { sha256 } : {}), ...(blockedReason ? { blockedReason } : {}) };
}

export class DynamoDbFileRecordStore implements FileRecordStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(record: FileRecord): Promise<void> {
    const expiresAt = Math.floor(Date.parse(record.createdAt) / 1000) + filesBucket.stagedObjectExpirationDays * secondsPerDay;
    await callDownstream('DynamoDB PutItem (file)', () =>
      this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...fileKey(record.workspaceId, record.fileId),
            ...record,
            gsi1pk: `WS#${record.workspaceId}#FILES`,
            gsi1sk: `${record.createdAt}#${record.fileId}`,
            expiresAt,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
  }

  async get(workspaceId: string, fileId: string): Promise<FileRecord | undefined> {
    const { Item } = await callDownstream('DynamoDB GetItem (file)', () =>
      this.client.send(new GetCommand({ TableName: this.tableName, Key: fileKey(workspaceId, fileId) })),
    );
    return Item ? toFileRecord(Item) : undefined;
  }

  async delete(workspaceId: string, fileId: string): Promise<void> {
    await callDownstream('DynamoDB DeleteItem (file)', () => this.client.send(new DeleteCommand({ TableName: this.tableName, Key: fileKey(workspaceId, fileId) })));
  }

  async markReady(workspaceId: string, fileId: string, content: { mimeType: string; size: number; sha256: string; objectKey: string }): Promise<boolean> {
    return this.updatePending(workspaceId, fileId, 'SET #status = :ready, mimeType = :mimeType, #size = :size, sha256 = :sha256, objectKey = :objectKey', {
      ':ready': 'ready',
      ':mimeType': content.mimeType,
      ':size': content.size,
      ':sha256': content.sha256,
      ':objectKey': content.objectKey,
    });
  }

  async markBlocked(workspaceId: string, fileId: string, reason: BlockedReason, size: number): Promise<boolean> {
    return this.updatePending(workspaceId, fileId, 'SET #status = :blocked, blockedReason = :reason, #size = :size', {
      ':blocked': 'blocked',
      ':reason': reason,
      ':size': size,
    });
  }

  private async updatePending(workspaceId: string, fileId: string, update: string, values: Record<string, unknown>): Promise<boolean> {
    return callDownstream('DynamoDB UpdateItem (file)', async () => {
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: fileKey(workspaceId, fileId),
            UpdateExpression: update,
            ConditionExpression: '#status = :pending',
            // `status` and `size` are DynamoDB reserved words.
            ExpressionAttributeNames: { '#status': 'status', '#size': 'size' },
            ExpressionAttributeValues: { ...values, ':pending': 'pending_upload' },
          }),
        );
        return true;
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return false;
        throw error;
      }
    });
  }
}
