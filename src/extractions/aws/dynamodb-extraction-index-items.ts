import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { batchWrite } from '../../infrastructure/dynamodb-batches.ts';
import { queryPages } from '../../infrastructure/dynamodb-queries.ts';
import type { ExtractionRecord } from '../extraction.ts';
import { attentionPartition, attentionShardCount, contentHashPartition, extractionKey } from '../extraction-keys.ts';
import type { ExtractionIndex, StoredExtraction } from '../extraction-store.ts';
import { labelItemKeys, labelItemsOf, recordOf } from './extraction-items.ts';

/**
 * The items and index entries that point at extraction records: label items (list filters), content
 * hashes (the duplicate policy) and the sparse attention index (the sweeper).
 */
export class DynamoDbExtractionIndexItems implements ExtractionIndex {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Idempotent: the label items of a record (labels never change after creation). */
  async writeLabelItems(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'labels'>): Promise<void> {
    await batchWrite(this.client, this.tableName, labelItemsOf(record).map((item) => ({ PutRequest: { Item: item } })));
  }

  async removeLabelItems(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'labels'>): Promise<void> {
    await batchWrite(this.client, this.tableName, labelItemKeys(record).map((key) => ({ DeleteRequest: { Key: key } })));
  }

  /** The label and content hash items of a record, for its delete. */
  keysOf(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'labels' | 'sha256'>): { pk: string; sk: string }[] {
    return [
      ...labelItemKeys(record),
      ...(record.sha256 ? [{ pk: contentHashPartition(record.workspaceId, record.sha256), sk: record.id }] : []),
    ];
  }

  // Content hashes, for the duplicate policy.

  async rememberContentHash(record: Pick<ExtractionRecord, 'workspaceId' | 'id'>, sha256: string): Promise<void> {
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { pk: contentHashPartition(record.workspaceId, sha256), sk: record.id, extractionId: record.id },
      }),
    );
  }

  /** Identifiers are time-sortable, so "earlier" is a key range below the extraction's own id. */
  async hasEarlierWithContentHash(record: Pick<ExtractionRecord, 'workspaceId' | 'id'>, sha256: string): Promise<boolean> {
    const { Items } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :hash AND sk < :own',
        ExpressionAttributeValues: { ':hash': contentHashPartition(record.workspaceId, sha256), ':own': record.id },
        Limit: 1,
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).length > 0;
  }

  // The attention index.

  /** Records that are in flight, not yet counted or being deleted: what the sweeper looks at. */
  async *needingAttention(): AsyncGenerator<StoredExtraction> {
    for (let shard = 0; shard < attentionShardCount; shard += 1) {
      const pages = queryPages(this.client, {
        TableName: this.tableName,
        IndexName: 'gsi6',
        KeyConditionExpression: 'gsi6pk = :shard',
        ExpressionAttributeValues: { ':shard': attentionPartition(shard) },
      });
      for await (const page of pages) for (const item of page.Items ?? []) yield recordOf(item);
    }
  }

  /**
   * A terminal, counted record whose event is recorded needs no attention: it leaves the index,
   * unless it changed since (whoever changed it leaves it then, or the sweeper does).
   */
  async leaveAttentionIndex(record: StoredExtraction): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: extractionKey(record.id),
          UpdateExpression: 'REMOVE gsi6pk, gsi6sk',
          ConditionExpression: 'revision = :revision AND attribute_exists(gsi6pk) AND attribute_not_exists(eventPending)',
          ExpressionAttributeValues: { ':revision': record.revision },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error; // changed since, or already out
    }
  }
}
