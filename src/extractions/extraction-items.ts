/// <reference lib="es2024.string" />
import { asDynamoMap } from '../infrastructure/caller-keyed-maps.ts';
import type { PendingCount } from '../platform/exact-counters.ts';
import type { ExtractionRecord, ExtractionStatus } from './extraction.ts';
import { extractionKey, indexAttributesOf, labelKeyPartition, labelValuePartition } from './extraction-keys.ts';

// The items an extraction is stored as (key layout: extraction-keys.ts), shared by the store's parts.

/** The record as stored: the resource plus bookkeeping for optimistic locking and counters. */
export interface StoredExtraction extends ExtractionRecord {
  /** Increments on every write of the record; writes are conditional on it (optimistic locking). */
  revision: number;
  /** The status the workspace counters currently count this record under; absent: not counted. */
  countedAs?: ExtractionStatus;
  /** Set while a delete is under way: the record has left every list and GET answers 404. */
  deleting?: boolean;
  /** A counter change claimed and not yet confirmed (src/platform/exact-counters.ts). */
  pendingCount?: PendingCount<ExtractionStatus>;
  /**
   * Set by the terminal transition of a generation, cleared once its event is recorded: until then
   * the record stays in the attention index whatever else changes (counters, feedback), so the
   * sweeper records the event of a settlement that stopped between the two writes.
   */
  eventPending?: boolean;
}

export function labelItemKeys(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'labels'>): { pk: string; sk: string }[] {
  return Object.entries(record.labels).flatMap(([key, value]) => [
    { pk: labelValuePartition(record.workspaceId, key, value), sk: record.id },
    { pk: labelKeyPartition(record.workspaceId, key), sk: record.id },
  ]);
}

export function labelItemsOf(record: Pick<ExtractionRecord, 'workspaceId' | 'id' | 'labels'>): { pk: string; sk: string; extractionId: string }[] {
  return labelItemKeys(record).map((key) => ({ ...key, extractionId: record.id }));
}

// DynamoDB's limits on key attributes, of the table and of every index (UTF-8 bytes).
const maximumPartitionKeyBytes = 2048;
const maximumSortKeyBytes = 1024;

/** Throws before any write when a key attribute of the item would be refused by DynamoDB. */
export function assertStorableKeys(item: Record<string, unknown>): void {
  for (const [name, value] of Object.entries(item)) {
    const limit = /^(gsi\d+)?pk$/.test(name) ? maximumPartitionKeyBytes : /^(gsi\d+)?sk$/.test(name) ? maximumSortKeyBytes : undefined;
    if (limit === undefined || typeof value !== 'string') continue;
    const bytes = Buffer.byteLength(value, 'utf8');
    if (bytes === 0 || bytes > limit || !value.isWellFormed()) throw new Error(`Key attribute ${name} (${bytes} bytes) cannot be stored.`);
  }
}

export function itemOf(record: StoredExtraction, options?: { needsAttention: boolean }): Record<string, unknown> {
  const needsAttention = options?.needsAttention ?? (record.countedAs !== record.status || record.deleting === true || record.eventPending === true);
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
