import { decodeTime } from 'ulidx';
import type { ExtractionRecord, ExtractionStatus } from '../../src/extractions/extraction.ts';
import type { DynamoDbExtractionStore } from '../../src/extractions/aws/dynamodb-extraction-store.ts';
import { itemOf, labelItemsOf } from '../../src/extractions/aws/extraction-items.ts';
import { batchWrite } from '../../src/infrastructure/dynamodb-batches.ts';
import { dynamoDocumentClient } from '../../src/infrastructure/dynamodb-client.ts';
import { newIdentifier } from '../../src/infrastructure/identifiers.ts';
import { paperflowConfiguration } from '../../src/composition/configuration.ts';

const statuses: ExtractionStatus[] = ['COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'COMPLETED', 'FAILED', 'REJECTED'];

/** Terminal extraction records as the service writes them, with one `customer` label each. */
export function seededRecord(workspaceId: string, index: number): ExtractionRecord {
  const id = newIdentifier('ext');
  const createdAt = new Date(decodeTime(id.slice(4))).toISOString();
  const status = statuses[index % statuses.length]!;
  const completedAt = new Date(Date.parse(createdAt) + 1_000 + (index % 977)).toISOString();
  return {
    id,
    workspaceId,
    status,
    generation: 1,
    createdAt,
    updatedAt: completedAt,
    completedAt,
    labels: { customer: `customer-${index % 50}` },
    document: { fileId: `file_${id.slice(4)}`, fileName: 'invoice.pdf', mimeType: 'application/pdf', size: 24_000, pageCount: 1 },
    outputAvailable: status === 'COMPLETED',
    ...(status !== 'COMPLETED' ? { error: { code: status === 'FAILED' ? 'DOCUMENT_EXTRACTION_FAILED' : 'DOCUMENT_REJECTED', message: 'seeded' } } : {}),
  } as ExtractionRecord;
}

/**
 * Writes many terminal records and their label items in batches, counted as they are but without
 * touching the counters item (the caller adds the totals once with `store.counters.add`).
 */
export async function seedRecords(records: ExtractionRecord[]): Promise<void> {
  await batchWrite(
    dynamoDocumentClient(),
    paperflowConfiguration().resources.recordsTableName(),
    records.flatMap((record) => [
      ...labelItemsOf(record).map((item) => ({ PutRequest: { Item: item } })),
      { PutRequest: { Item: itemOf({ ...record, revision: 1, countedAs: record.status }, { needsAttention: false }) } },
    ]),
  );
}

/** Writes `count` records in batches and sets the workspace counters to match. */
export async function seedWorkspace(store: DynamoDbExtractionStore, workspaceId: string, count: number, concurrency = 8): Promise<void> {
  const batchSize = 200;
  let next = 0;
  const counts: Partial<Record<ExtractionStatus | 'total', number>> = { total: count };
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const start = next;
        next += batchSize;
        const records = Array.from({ length: Math.min(batchSize, count - start) }, (_, offset) => seededRecord(workspaceId, start + offset));
        for (const record of records) counts[record.status] = (counts[record.status] ?? 0) + 1;
        await seedRecords(records);
      }
    }),
  );
  await store.counters.add(workspaceId, counts);
}
