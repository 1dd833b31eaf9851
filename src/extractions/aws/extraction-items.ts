/// <reference lib="es2024.string" />
import * as z from 'zod/mini';
import { asDynamoMap } from '../../infrastructure/caller-keyed-maps.ts';
import { extractionStatuses, type ExtractionRecord } from '../extraction.ts';
import { extractionKey, indexAttributesOf, labelKeyPartition, labelValuePartition } from '../extraction-keys.ts';
import type { StoredExtraction } from '../extraction-store.ts';

// The items an extraction is stored as (key layout: extraction-keys.ts), shared by the store's parts.

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

const status = z.enum(extractionStatuses);

/** The record item: the record's attributes (keys and index attributes are left out). */
const recordItem = z.object({
  id: z.string(),
  workspaceId: z.string(),
  status,
  generation: z.number(),
  createdAt: z.string(),
  updatedAt: z.string(),
  completedAt: z.optional(z.string()),
  error: z.optional(z.object({ code: z.enum(['DOCUMENT_NOT_ROUTED', 'DOCUMENT_EXTRACTION_FAILED', 'DOCUMENT_REJECTED']), message: z.string() })),
  labels: z.record(z.string(), z.string()),
  document: z.object({
    fileId: z.optional(z.string()),
    fileName: z.optional(z.string()),
    mimeType: z.optional(z.string()),
    size: z.optional(z.number()),
    pageCount: z.optional(z.number()),
  }),
  source: z.optional(z.object({ url: z.string(), fileName: z.optional(z.string()) })),
  sha256: z.optional(z.string()),
  outputAvailable: z.boolean(),
  reviewRequired: z.optional(z.boolean()),
  revision: z.number(),
  countedAs: z.optional(status),
  deleting: z.optional(z.boolean()),
  pendingCount: z.optional(z.object({ token: z.string(), claimedAt: z.number(), from: z.optional(status), to: z.optional(status) })),
  eventPending: z.optional(z.boolean()),
});

export function recordOf(item: Record<string, unknown>): StoredExtraction {
  return recordItem.parse(item);
}
