import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  DeleteCommand,
  GetCommand,
  PutCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { batchGet, batchWrite } from '../../infrastructure/dynamodb-batches.ts';
import { queryPages } from '../../infrastructure/dynamodb-queries.ts';
import { logger } from '../../infrastructure/logger.ts';
import { isTerminal, type ExtractionRecord } from '../extraction.ts';
import { DynamoDbExtractionFeedback } from './dynamodb-extraction-feedback.ts';
import { extractionKey, recordSortKey } from '../extraction-keys.ts';
import type { ExtractionListQuery, ExtractionListResult } from '../extraction-listing.ts';
import type { ExtractionStore, MutationResult, StoredExtraction } from '../extraction-store.ts';
import { DynamoDbExtractionCounters } from './dynamodb-extraction-counters.ts';
import { DynamoDbExtractionIndexItems } from './dynamodb-extraction-index-items.ts';
import { DynamoDbExtractionLister } from './dynamodb-extraction-listing.ts';
import { assertStorableKeys, itemOf, labelItemsOf, recordOf } from './extraction-items.ts';

const optimisticRetries = 10;

/**
 * DynamoDB storage of extractions (key layout: extraction-keys.ts): the records themselves, and the
 * multi-item changes that keep the other parts in step with them, which share its one client:
 * `indexItems` (labels, content hashes, attention), `counters` (exact totals) and `feedback`.
 * DynamoDB Local emulators have no transactions, so multi-item changes are ordered to be safe when
 * interrupted, and every write of the record is a conditional put on its revision.
 */
export class DynamoDbExtractionStore implements ExtractionStore {
  readonly indexItems: DynamoDbExtractionIndexItems;
  readonly counters: DynamoDbExtractionCounters;
  readonly feedback: DynamoDbExtractionFeedback;
  private readonly lister: DynamoDbExtractionLister;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
    now: () => number = Date.now,
  ) {
    this.indexItems = new DynamoDbExtractionIndexItems(client, tableName);
    this.counters = new DynamoDbExtractionCounters(client, tableName, now);
    this.feedback = new DynamoDbExtractionFeedback(client, tableName);
    this.lister = new DynamoDbExtractionLister(this);
  }

  /**
   * The record first, then its label items, then the counters: until counted the record stays in the
   * attention index, and the sweeper rewrites the label items of any record that is not counted yet,
   * so an interrupted create can leave neither orphan label items nor a record missing from them.
   * Every item is derived, and its keys checked, before the first write, so a record that cannot be
   * indexed is refused with nothing written; a label write that fails takes the record back out.
   */
  async create(record: ExtractionRecord): Promise<StoredExtraction> {
    const stored: StoredExtraction = { ...record, revision: 1 };
    const recordItem = itemOf(stored);
    for (const item of [recordItem, ...labelItemsOf(record)]) assertStorableKeys(item);
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: recordItem,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    try {
      await this.indexItems.writeLabelItems(record);
    } catch (error) {
      await this.withdrawCreated(stored);
      throw error;
    }
    await this.syncCounters(stored);
    return stored;
  }

  /**
   * Undoes a create that failed before its counters were touched: label items, then the record (only
   * as created: nobody else has changed it). Should this fail too, the record is still uncounted and in
   * the attention index, where the sweeper finishes the create instead.
   */
  private async withdrawCreated(record: StoredExtraction): Promise<void> {
    try {
      await this.indexItems.removeLabelItems(record);
      await this.client.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: extractionKey(record.id),
          ConditionExpression: 'revision = :created AND attribute_not_exists(countedAs) AND attribute_not_exists(pendingCount)',
          ExpressionAttributeValues: { ':created': record.revision },
        }),
      );
    } catch (error) {
      logger.warn('could not withdraw a failed create; the sweeper finishes it', { extractionId: record.id, error });
    }
  }

  list(workspaceId: string, query: ExtractionListQuery): Promise<ExtractionListResult> {
    return this.lister.list(workspaceId, query);
  }

  async get(extractionId: string): Promise<StoredExtraction | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: extractionKey(extractionId), ConsistentRead: true }),
    );
    return Item ? recordOf(Item) : undefined;
  }

  /** The extraction as the workspace sees it: another workspace's or a deleted one does not exist. */
  async getInWorkspace(workspaceId: string, extractionId: string): Promise<StoredExtraction | undefined> {
    const record = await this.get(extractionId);
    return record && record.workspaceId === workspaceId && !record.deleting ? record : undefined;
  }

  async getMany(extractionIds: string[]): Promise<StoredExtraction[]> {
    const found = new Map<string, StoredExtraction>();
    for (const item of await batchGet(this.client, this.tableName, extractionIds.map(extractionKey))) {
      const record = recordOf(item);
      found.set(record.id, record);
    }
    return extractionIds.map((id) => found.get(id)).filter((record): record is StoredExtraction => record !== undefined);
  }

  /**
   * Read-decide-write with optimistic locking: `decide` sees the current record and returns the next
   * one, or undefined when the change no longer applies. Counters follow every applied change.
   */
  async mutate(
    extractionId: string,
    decide: (current: StoredExtraction) => ExtractionRecord | StoredExtraction | undefined,
  ): Promise<MutationResult> {
    for (let attempt = 0; attempt < optimisticRetries; attempt += 1) {
      const current = await this.get(extractionId);
      if (!current || current.deleting) return { applied: false, record: current };
      const decided = decide(current);
      if (!decided) return { applied: false, record: current };
      const { countedAs: _countedAs, pendingCount: _pendingCount, ...decidedContent }: Partial<StoredExtraction> & ExtractionRecord = decided;
      // Counter bookkeeping is not the caller's to change: it is carried over from the record read.
      const next: StoredExtraction = {
        ...decidedContent,
        revision: current.revision + 1,
        ...(current.countedAs ? { countedAs: current.countedAs } : {}),
        ...(current.pendingCount ? { pendingCount: current.pendingCount } : {}),
      };
      try {
        await this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: itemOf(next),
            ConditionExpression: 'revision = :revision',
            ExpressionAttributeValues: { ':revision': current.revision },
          }),
        );
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) continue;
        throw error;
      }
      await this.syncCounters(next);
      return { applied: true, record: next };
    }
    throw new Error(`Extraction ${extractionId} kept changing; gave up after ${optimisticRetries} attempts.`);
  }

  /**
   * Brings the workspace counters in line with the record, exactly once per change (the protocol of
   * src/platform/exact-counters.ts). Until counted, and until its terminal event is recorded
   * (`eventPending`), a record stays in the attention index, so the sweeper finishes what an
   * interrupted caller left; a terminal record counted as it is, its event recorded, leaves it.
   */
  async syncCounters(record: Pick<StoredExtraction, 'id'>): Promise<void> {
    const counted = await this.counters.sync(() => this.get(record.id));
    if (counted && isTerminal(counted.status) && !counted.deleting && !counted.eventPending) await this.indexItems.leaveAttentionIndex(counted);
  }

  /**
   * The terminal event of `generation` is recorded: the record no longer waits for it. Does nothing
   * when it was already cleared, or the record has moved on to another generation since.
   */
  async clearEventPending(extractionId: string, generation: number): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: extractionKey(extractionId),
          UpdateExpression: 'REMOVE eventPending SET revision = revision + :one',
          ConditionExpression: 'attribute_exists(eventPending) AND generation = :generation',
          ExpressionAttributeValues: { ':generation': generation, ':one': 1 },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  /** Every page of a Query, following LastEvaluatedKey; stop early by leaving the loop. */
  queryPages(input: QueryCommandInput): AsyncGenerator<QueryCommandOutput> {
    return queryPages(this.client, input);
  }

  /** How many items a Query matches (`Select: COUNT`, every page). */
  async countMatching(input: QueryCommandInput): Promise<number> {
    let total = 0;
    for await (const page of this.queryPages({ ...input, Select: 'COUNT' })) total += page.Count ?? 0;
    return total;
  }

  /** Every item under the extraction's partition (record, output, feedback), plus label and hash items. */
  async removeItems(record: StoredExtraction): Promise<void> {
    const owned: Record<string, unknown>[] = [];
    const pages = this.queryPages({
      TableName: this.tableName,
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': extractionKey(record.id).pk },
      ProjectionExpression: 'pk, sk',
    });
    for await (const page of pages) owned.push(...(page.Items ?? []));
    const children = owned.filter((key) => key.sk !== recordSortKey);
    await batchWrite(
      this.client,
      this.tableName,
      [...children, ...this.indexItems.keysOf(record)].map((key) => ({ DeleteRequest: { Key: { pk: key.pk, sk: key.sk } } })),
    );
    // The record goes last: until then it says what remains to be removed.
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: extractionKey(record.id) }));
  }
}
