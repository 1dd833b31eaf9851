/// <reference lib="es2024.string" />
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { queryPages } from '../infrastructure/dynamodb-queries.ts';
import { logger } from '../infrastructure/logger.ts';
import {
  BatchGetCommand,
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
  type QueryCommandInput,
  type QueryCommandOutput,
} from '@aws-sdk/lib-dynamodb';
import { extractionStatuses, isTerminal, type ExtractionRecord, type ExtractionStatus, type Feedback } from './extraction.ts';
import {
  attentionPartition,
  attentionShardCount,
  contentHashPartition,
  countersKey,
  extractionKey,
  feedbackKey,
  indexAttributesOf,
  labelKeyPartition,
  labelValuePartition,
  recordSortKey,
} from './extraction-keys.ts';
import { asDynamoMap } from './caller-keyed-maps.ts';

/** The record as stored: the resource plus bookkeeping for optimistic locking and counters. */
export interface StoredExtraction extends ExtractionRecord {
  /** Increments on every write of the record; writes are conditional on it (optimistic locking). */
  revision: number;
  /** The status the workspace counters currently count this record under; absent: not counted. */
  countedAs?: ExtractionStatus;
  /** Set while a delete is under way: the record has left every list and GET answers 404. */
  deleting?: boolean;
  /** A counter change claimed and not yet confirmed (see syncCounters). */
  pendingCount?: PendingCount;
}

export interface PendingCount {
  token: string;
  /** Epoch milliseconds; a claim older than the lease was abandoned by its claimant. */
  claimedAt: number;
  from?: ExtractionStatus;
  to?: ExtractionStatus;
}

export type ExtractionCounts = Record<ExtractionStatus | 'total', number>;

export interface MutationResult {
  applied: boolean;
  record: StoredExtraction | undefined;
}

const maximumBatchWriteItems = 25;
const maximumBatchGetItems = 100;
const optimisticRetries = 10;
/** A claimant finishes its counter change within this (three DynamoDB writes); older claims are abandoned. */
const claimLeaseMs = 60_000;

/**
 * DynamoDB storage of extractions (key layout: extraction-keys.ts). DynamoDB Local emulators have no
 * transactions, so multi-item changes are ordered to be safe when interrupted, and every write of the
 * record is a conditional put on its revision.
 */
export class ExtractionStore {
  constructor(
    readonly client: DynamoDBDocumentClient,
    readonly tableName: string,
    private readonly now: () => number = Date.now,
  ) {}

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
    const labelItems = labelItemsOf(record);
    for (const item of [recordItem, ...labelItems]) assertStorableKeys(item);
    await this.client.send(
      new PutCommand({
        TableName: this.tableName,
        Item: recordItem,
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
    try {
      await this.batchWrite(labelItems.map((item) => ({ PutRequest: { Item: item } })));
    } catch (error) {
      await this.withdrawCreated(stored, labelItems);
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
  private async withdrawCreated(record: StoredExtraction, labelItems: { pk: string; sk: string }[]): Promise<void> {
    try {
      await this.batchWrite(labelItems.map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } })));
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

  /** Idempotent: the label items of a record (labels never change after creation). */
  async writeLabelItems(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'labels'>): Promise<void> {
    await this.batchWrite(labelItemsOf(record).map((item) => ({ PutRequest: { Item: item } })));
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
    for (let start = 0; start < extractionIds.length; start += maximumBatchGetItems) {
      let keys: Record<string, unknown>[] = extractionIds.slice(start, start + maximumBatchGetItems).map(extractionKey);
      for (let attempt = 0; keys.length > 0; attempt += 1) {
        const response = await this.client.send(new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: keys } } }));
        for (const item of response.Responses?.[this.tableName] ?? []) {
          const record = recordOf(item);
          found.set(record.id, record);
        }
        keys = (response.UnprocessedKeys?.[this.tableName]?.Keys as Record<string, unknown>[] | undefined) ?? [];
        if (keys.length > 0) await backOff(attempt);
      }
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
      const { countedAs: _countedAs, pendingCount: _pendingCount, ...decidedContent } = decided as StoredExtraction;
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
   * Brings the workspace counters in line with the record, exactly once per change even when
   * interrupted, repeated or raced (DynamoDB emulators have no transactions): the record first claims
   * the change (`pendingCount`, conditional: one claimant), the counters apply it guarded by its token
   * (`NOT contains(tokens, :token)`), then the record clears the claim and says what it is counted
   * as, and the token leaves the counters item. Only the claimant works on a fresh claim: another
   * finisher could otherwise apply it again after the claimant removed its token. A claim older than
   * the lease was abandoned (its claimant stopped) and is finished by whoever finds it; if the counters
   * already carry its token, it is only confirmed. So the token set holds only claims in progress.
   * Until counted, a record stays in the attention index, so the sweeper finishes what an interrupted
   * caller left.
   */
  async syncCounters(record: Pick<StoredExtraction, 'id'>): Promise<void> {
    for (let attempt = 0; attempt < optimisticRetries; attempt += 1) {
      const current = await this.get(record.id);
      if (!current) return;
      if (current.pendingCount) {
        if (this.now() - current.pendingCount.claimedAt < claimLeaseMs) return; // its claimant finishes it
        await this.applyPendingCount(current, current.pendingCount);
        continue;
      }
      const target = current.deleting ? undefined : current.status;
      if (current.countedAs === target) {
        if (isTerminal(current.status) && !current.deleting) await this.leaveAttentionIndex(current);
        return;
      }
      const claimedAt = this.now();
      const pending: PendingCount = {
        token: `${current.id}#${current.revision}#${claimedAt}`,
        claimedAt,
        ...(current.countedAs ? { from: current.countedAs } : {}),
        ...(target ? { to: target } : {}),
      };
      try {
        await this.client.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: extractionKey(current.id),
            UpdateExpression: 'SET pendingCount = :pending, revision = revision + :one',
            ConditionExpression: 'revision = :revision AND attribute_not_exists(pendingCount)',
            ExpressionAttributeValues: { ':pending': pending, ':revision': current.revision, ':one': 1 },
          }),
        );
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) continue; // changed meanwhile: look again
        throw error;
      }
      await this.applyPendingCount({ ...current, revision: current.revision + 1 }, pending);
    }
    throw new Error(`Counters of extraction ${record.id} kept changing; gave up after ${optimisticRetries} attempts.`);
  }

  private async applyPendingCount(record: StoredExtraction, pending: PendingCount): Promise<void> {
    const deltas = new Map<string, number>();
    if (pending.from) deltas.set(pending.from, -1);
    if (pending.to) deltas.set(pending.to, (deltas.get(pending.to) ?? 0) + 1);
    if (!pending.from && pending.to) deltas.set('total', 1);
    if (pending.from && !pending.to) deltas.set('total', -1);
    const names: Record<string, string> = { '#tokens': 'tokens' };
    const values: Record<string, unknown> = { ':token': pending.token, ':tokens': new Set([pending.token]) };
    const additions = [...deltas].map(([name, delta], index) => {
      names[`#c${index}`] = name;
      values[`:d${index}`] = delta;
      return `#c${index} :d${index}`;
    });
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: countersKey(record.workspaceId),
          UpdateExpression: `ADD ${[...additions, '#tokens :tokens'].join(', ')}`,
          ConditionExpression: 'attribute_not_exists(#tokens) OR NOT contains(#tokens, :token)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error; // applied before an interruption
    }
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: extractionKey(record.id),
          UpdateExpression: `${pending.to ? 'SET countedAs = :to, ' : 'SET '}revision = revision + :one REMOVE pendingCount${pending.to ? '' : ', countedAs'}`,
          ConditionExpression: 'pendingCount.#token = :token',
          ExpressionAttributeNames: { '#token': 'token' },
          ExpressionAttributeValues: { ':token': pending.token, ':one': 1, ...(pending.to ? { ':to': pending.to } : {}) },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error; // finished by someone else
    }
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: countersKey(record.workspaceId),
        UpdateExpression: 'DELETE #tokens :tokens',
        ExpressionAttributeNames: { '#tokens': 'tokens' },
        ExpressionAttributeValues: { ':tokens': new Set([pending.token]) },
      }),
    );
  }

  private async leaveAttentionIndex(record: StoredExtraction): Promise<void> {
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: extractionKey(record.id),
          UpdateExpression: 'REMOVE gsi6pk, gsi6sk',
          ConditionExpression: 'revision = :revision AND attribute_exists(gsi6pk)',
          ExpressionAttributeValues: { ':revision': record.revision },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error; // changed since, or already out
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

  async counts(workspaceId: string): Promise<ExtractionCounts> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: countersKey(workspaceId), ConsistentRead: true }),
    );
    const counts = { total: Number(Item?.total ?? 0) } as ExtractionCounts;
    for (const status of extractionStatuses) counts[status] = Number(Item?.[status] ?? 0);
    return counts;
  }

  /** Records that are in flight, not yet counted or being deleted: what the sweeper looks at. */
  async *needingAttention(): AsyncGenerator<StoredExtraction> {
    for (let shard = 0; shard < attentionShardCount; shard += 1) {
      const pages = this.queryPages({
        TableName: this.tableName,
        IndexName: 'gsi6',
        KeyConditionExpression: 'gsi6pk = :shard',
        ExpressionAttributeValues: { ':shard': attentionPartition(shard) },
      });
      for await (const page of pages) for (const item of page.Items ?? []) yield recordOf(item);
    }
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

  // Feedback.

  async putFeedback(feedback: Feedback): Promise<void> {
    await this.client.send(
      new PutCommand({ TableName: this.tableName, Item: { ...feedbackKey(feedback.extractionId, feedback.id), ...feedback } }),
    );
  }

  // Deletion.

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
    const indexItems = [
      ...labelItemKeys(record),
      ...(record.sha256 ? [{ pk: contentHashPartition(record.workspaceId, record.sha256), sk: record.id }] : []),
    ];
    await this.batchWrite([...children, ...indexItems].map((key) => ({ DeleteRequest: { Key: { pk: key.pk, sk: key.sk } } })));
    // The record goes last: until then it says what remains to be removed.
    await this.client.send(new DeleteCommand({ TableName: this.tableName, Key: extractionKey(record.id) }));
  }

  private async batchWrite(requests: Record<string, unknown>[]): Promise<void> {
    for (let start = 0; start < requests.length; start += maximumBatchWriteItems) {
      let pending = requests.slice(start, start + maximumBatchWriteItems);
      for (let attempt = 0; pending.length > 0; attempt += 1) {
        const response = await this.client.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: pending } }));
        pending = (response.UnprocessedItems?.[this.tableName] as Record<string, unknown>[] | undefined) ?? [];
        if (pending.length > 0) await backOff(attempt);
      }
    }
  }

  /**
   * Writes many terminal records and their label items in batches, counted as they are but without
   * touching the counters item (the caller adds the totals once with `addToCounts`): benchmark seeding.
   */
  async seedRecords(records: ExtractionRecord[]): Promise<void> {
    await this.batchWrite(
      records.flatMap((record) => [
        ...labelItemsOf(record).map((item) => ({ PutRequest: { Item: item } })),
        { PutRequest: { Item: itemOf({ ...record, revision: 1, countedAs: record.status }, { needsAttention: false }) } },
      ]),
    );
  }

  /** Adds to the workspace counters directly: only for seeding and for tests that simulate a crash. */
  async addToCounts(workspaceId: string, deltas: Partial<ExtractionCounts>): Promise<void> {
    const entries = Object.entries(deltas).filter(([, delta]) => delta);
    if (entries.length === 0) return;
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: countersKey(workspaceId),
        UpdateExpression: `ADD ${entries.map((_, index) => `#c${index} :d${index}`).join(', ')}`,
        ExpressionAttributeNames: Object.fromEntries(entries.map(([name], index) => [`#c${index}`, name])),
        ExpressionAttributeValues: Object.fromEntries(entries.map(([, delta], index) => [`:d${index}`, delta])),
      }),
    );
  }
}

function labelItemKeys(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'labels'>): { pk: string; sk: string }[] {
  return Object.entries(record.labels).flatMap(([key, value]) => [
    { pk: labelValuePartition(record.workspaceId, key, value), sk: record.id },
    { pk: labelKeyPartition(record.workspaceId, key), sk: record.id },
  ]);
}

function labelItemsOf(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'labels'>): { pk: string; sk: string; extractionId: string }[] {
  return labelItemKeys(record).map((key) => ({ ...key, extractionId: record.id }));
}

// DynamoDB's limits on key attributes, of the table and of every index (UTF-8 bytes).
const maximumPartitionKeyBytes = 2048;
const maximumSortKeyBytes = 1024;

/** Throws before any write when a key attribute of the item would be refused by DynamoDB. */
function assertStorableKeys(item: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(item)) {
    const limit = /^(gsi\d+)?pk$/.test(name) ? maximumPartitionKeyBytes : /^(gsi\d+)?sk$/.test(name) ? maximumSortKeyBytes : undefined;
    if (limit === undefined || typeof value !== 'string') continue;
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes === 0 || bytes > limit || !value.isWellFormed()) throw new Error(`Key attribute ${name} (${bytes} bytes) cannot be stored.`);
  }
}

function itemOf(record: StoredExtraction, options?: { needsAttention: boolean }): Record<string, unknown> {
  const needsAttention = options?.needsAttention ?? (record.countedAs !== record.status || record.deleting === true);
  const indexes = indexAttributesOf(record, { needsAttention });
  const item: Record<string, unknown> = { ...extractionKey(record.id), ...record, labels: asDynamoMap(record.labels) };
  for (const [name, value] of Object.entries(indexes)) {
    // A record being deleted is in no list, only in the attention index that finishes the delete.
    if (record.deleting && !name.startsWith('gsi6')) continue;
    if (value !== undefined) item[name] = value;
  }
  return item;
}

const internalAttributes = new Set([
  'pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'gsi3pk', 'gsi3sk', 'gsi4pk', 'gsi4sk', 'gsi5pk', 'gsi5sk', 'gsi6pk', 'gsi6sk',
]);

export function recordOf(item: Record<string, unknown>): StoredExtraction {
  const record: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) if (!internalAttributes.has(name)) record[name] = value;
  return record as unknown as StoredExtraction;
}


async function backOff(attempt: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 25 * 2 ** attempt)));
}
