import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDbExactCounters } from '../../platform/aws/dynamodb-exact-counters.ts';
import { extractionStatuses, type ExtractionStatus } from '../extraction.ts';
import { countersKey, extractionKey } from '../extraction-keys.ts';
import type { ExtractionCounts, StoredExtraction } from '../extraction-store.ts';

/**
 * The workspace's extraction counters (WS#<ws>#EXTCOUNTS / COUNTS): a total and one count per status,
 * kept exact by the pending-count protocol of src/platform/exact-counters.ts. A record being deleted
 * is counted under nothing.
 */
export class DynamoDbExtractionCounters {
  private readonly counters: DynamoDbExactCounters<ExtractionStatus>;

  constructor(client: DynamoDBDocumentClient, tableName: string, now: () => number = Date.now) {
    this.counters = new DynamoDbExactCounters(client, tableName, extractionStatuses, now);
  }

  /** Returns the record once counted as it stands (see DynamoDbExactCounters.sync). */
  sync(read: () => Promise<StoredExtraction | undefined>): Promise<StoredExtraction | undefined> {
    return this.counters.sync(read, (record) => ({
      id: record.id,
      key: extractionKey(record.id),
      scope: countersKey(record.workspaceId),
      target: record.deleting ? undefined : record.status,
    }));
  }

  counts(workspaceId: string): Promise<ExtractionCounts> {
    return this.counters.counts(countersKey(workspaceId));
  }

  /** Adds to the workspace counters directly: only for seeding and for tests that simulate a crash. */
  add(workspaceId: string, deltas: Partial<ExtractionCounts>): Promise<void> {
    return this.counters.add(countersKey(workspaceId), deltas);
  }
}
