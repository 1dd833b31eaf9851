import { DeleteCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { decodeTime } from 'ulidx';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ExtractionRecord, ExtractionStatus } from '../../src/extractions/extraction.ts';
import { labelKeyPartition, labelValuePartition, statusPartition, workspacePartition } from '../../src/extractions/extraction-keys.ts';
import { DynamoDbExtractionLister } from '../../src/extractions/aws/dynamodb-extraction-listing.ts';
import { ExtractionSettlement } from '../../src/extractions/extraction-settlement.ts';
import { extractionSettlement, extractionStore, outputStore } from '../../src/composition/extractions.ts';
import type { EventRecorder } from '../../src/events/event-recorder.ts';
import { eventLister } from '../../src/composition/events.ts';
import { newIdentifier } from '../../src/infrastructure/identifiers.ts';
import { useMetricSink, type RecordedMetric } from '../../src/infrastructure/metrics.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { recordsTable } from '../support/records-table.ts';

// The store's multi-item writes against the DynamoDB emulator: counters stay exact when writers
// repeat and race, and the sweeper heals what an interrupted writer left.
let stack: StackUnderTest;

beforeAll(async () => {
  stack = await startStackUnderTest();
});

afterAll(async () => {
  await stack?.stop();
});

function newRecord(workspaceId: string, labels: Record<string, string> = {}): ExtractionRecord {
  const id = newIdentifier('ext');
  const createdAt = new Date(decodeTime(id.slice(4))).toISOString();
  return { id, workspaceId, status: 'QUEUED', generation: 1, createdAt, updatedAt: createdAt, labels, document: {}, outputAvailable: false };
}

async function countIn(indexName: string, partitionKey: string): Promise<number> {
  const table = recordsTable();
  let total = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await table.client.send(
      new QueryCommand({
        TableName: table.tableName,
        IndexName: indexName,
        KeyConditionExpression: `${indexName}pk = :pk`,
        ExpressionAttributeValues: { ':pk': partitionKey },
        Select: 'COUNT',
        ExclusiveStartKey: startKey,
      }),
    );
    total += page.Count ?? 0;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return total;
}

async function expectCountersExact(workspaceId: string) {
  const counts = await extractionStore().counters.counts(workspaceId);
  expect(counts.total).toBe(await countIn('gsi1', workspacePartition(workspaceId)));
  for (const status of ['QUEUED', 'PROCESSING', 'COMPLETED', 'FAILED', 'REJECTED'] as ExtractionStatus[]) {
    expect(counts[status], status).toBe(await countIn('gsi2', statusPartition(workspaceId, status)));
  }
}

describe('counters', () => {
  it('stay exact when every transition, settlement and delete is repeated and raced', async () => {
    const workspaceId = 'ws_store_race';
    const store = extractionStore();
    const settlement = extractionSettlement();
    const records = await Promise.all(Array.from({ length: 30 }, (_, index) => store.create(newRecord(workspaceId, { batch: String(index % 3) }))));
    const terminalStatuses = ['COMPLETED', 'FAILED', 'REJECTED'] as const;

    await Promise.all(
      records.map(async (record, index) => {
        const toProcessing = () => store.mutate(record.id, (current) => (current.status === 'QUEUED' ? { ...current, status: 'PROCESSING', updatedAt: new Date().toISOString() } : undefined));
        await Promise.all([toProcessing(), toProcessing(), store.syncCounters(record)]);
        const status = terminalStatuses[index % 3]!;
        const outcome = status === 'COMPLETED' ? { status } : { status, error: { code: status === 'FAILED' ? 'DOCUMENT_EXTRACTION_FAILED' : 'DOCUMENT_REJECTED', message: 'x' } as const };
        await Promise.all([settlement.finish(record.id, 1, outcome), settlement.finish(record.id, 1, outcome), store.syncCounters(record)]);
      }),
    );
    await Promise.all(
      records.slice(0, 9).map(async (record) => {
        const marked = await store.mutate(record.id, (current) => ({ ...current, deleting: true }));
        await Promise.all([settlement.completeDeletion(marked.record!), store.syncCounters(record)]);
      }),
    );

    const counts = await store.counters.counts(workspaceId);
    expect(counts.total).toBe(21);
    expect(counts.QUEUED + counts.PROCESSING).toBe(0);
    await expectCountersExact(workspaceId);
    const stillNeedingAttention = [];
    for await (const record of store.indexItems.needingAttention()) if (record.workspaceId === workspaceId) stillNeedingAttention.push(record.id);
    expect(stillNeedingAttention).toEqual([]);
  });
});

describe('the ExtractionDuration metric', () => {
  afterEach(() => useMetricSink(undefined));

  it('is recorded once, by outcome, when a generation ends; a repeated finish records nothing', async () => {
    const recorded: RecordedMetric[] = [];
    useMetricSink({ record: (metric) => recorded.push(metric) });
    const store = extractionStore();
    const record = await store.create(newRecord('ws_store_metrics'));
    await store.mutate(record.id, (current) => ({ ...current, status: 'PROCESSING', updatedAt: new Date().toISOString() }));

    await extractionSettlement().finish(record.id, 1, { status: 'REJECTED' });
    await extractionSettlement().finish(record.id, 1, { status: 'REJECTED' });

    expect(recorded.map(({ name, dimension }) => `${name} ${dimension}`)).toEqual(['ExtractionDuration REJECTED']);
    expect(recorded[0]!.value).toBeGreaterThanOrEqual(0);
  });
});

describe('the sweeper', () => {
  it('heals a create interrupted after the record was written: label items and counters', async () => {
    const workspaceId = 'ws_store_heal';
    const store = extractionStore();
    const record = await store.create(newRecord(workspaceId, { customer: 'acme' }));
    // Undo what create did after the record put: as if the writer stopped right there.
    for (const pk of [labelValuePartition(workspaceId, 'customer', 'acme'), labelKeyPartition(workspaceId, 'customer')]) {
      await recordsTable().client.send(new DeleteCommand({ TableName: store.tableName, Key: { pk, sk: record.id } }));
    }
    await store.counters.add(workspaceId, { total: -1, QUEUED: -1 });
    await recordsTable().client.send(new UpdateCommand({ TableName: store.tableName, Key: { pk: `EXT#${record.id}`, sk: 'EXTRACTION' }, UpdateExpression: 'REMOVE countedAs' }));
    const lister = new DynamoDbExtractionLister(store);
    const query = { page: 0, size: 10, sortBy: 'createdAt' as const, sort: 'desc' as const, labels: { customer: 'acme' } };
    expect((await lister.list(workspaceId, query)).totalItems).toBe(0);

    await extractionSettlement().sweep(60 * 60 * 1000);

    expect((await lister.list(workspaceId, query)).records.map((item) => item.id)).toEqual([record.id]);
    expect((await store.counters.counts(workspaceId)).QUEUED).toBe(1);
    await expectCountersExact(workspaceId);
  });

  it('finishes an interrupted delete', async () => {
    const workspaceId = 'ws_store_delete';
    const store = extractionStore();
    const settlement = extractionSettlement();
    const record = await store.create(newRecord(workspaceId, { customer: 'acme' }));
    await settlement.finish(record.id, 1, { status: 'COMPLETED' });
    await store.mutate(record.id, (current) => ({ ...current, deleting: true })); // and then the caller stopped

    const report = await settlement.sweep(60 * 60 * 1000);

    expect(report.deleted).toBeGreaterThanOrEqual(1);
    expect(await store.get(record.id)).toBeUndefined();
    expect((await store.counters.counts(workspaceId)).total).toBe(0);
    await expectCountersExact(workspaceId);
  });
});

describe('a terminal transition interrupted before its event was recorded', () => {
  /** A settlement whose recorder stops the process (throws) before the event's put, as a kill -9 there would. */
  function settlementStoppingBeforeTheEvent() {
    const stopped = { record: async () => Promise.reject(new Error('killed before the event was recorded')) } as unknown as EventRecorder;
    return new ExtractionSettlement(extractionStore(), outputStore(), stopped);
  }

  async function eventsOf(workspaceId: string): Promise<string[]> {
    const listed = await eventLister().list(workspaceId, { page: 0, size: 100, sort: 'asc' });
    return listed.events.map((event) => event.eventType);
  }

  it('stays in the attention index, so the sweeper records its event', async () => {
    const workspaceId = 'ws_store_finish_stopped';
    const store = extractionStore();
    const record = await store.create(newRecord(workspaceId));
    await store.mutate(record.id, (current) => ({ ...current, status: 'PROCESSING', updatedAt: new Date().toISOString() }));

    await expect(settlementStoppingBeforeTheEvent().finish(record.id, 1, { status: 'COMPLETED' })).rejects.toThrow(/killed/);
    expect((await store.get(record.id))?.status).toBe('COMPLETED');
    expect(await eventsOf(workspaceId)).toEqual([]);

    const report = await extractionSettlement().sweep(60 * 60 * 1000);

    expect(report.settled).toBeGreaterThanOrEqual(1);
    expect(await eventsOf(workspaceId)).toEqual(['document-insights.extraction.completed']);
    await expectCountersExact(workspaceId);
    const stillNeedingAttention = [];
    for await (const pending of store.indexItems.needingAttention()) if (pending.workspaceId === workspaceId) stillNeedingAttention.push(pending.id);
    expect(stillNeedingAttention).toEqual([]);
  });

  it('stays in the attention index when the record is changed again before the sweeper comes (feedback)', async () => {
    const workspaceId = 'ws_store_finish_stopped_feedback';
    const store = extractionStore();
    const record = await store.create(newRecord(workspaceId));
    await store.mutate(record.id, (current) => ({ ...current, status: 'PROCESSING', updatedAt: new Date().toISOString() }));
    await expect(settlementStoppingBeforeTheEvent().finish(record.id, 1, { status: 'FAILED', error: { code: 'DOCUMENT_EXTRACTION_FAILED', message: 'x' } })).rejects.toThrow(/killed/);
    await store.mutate(record.id, (current) => ({ ...current, reviewRequired: true }));

    await extractionSettlement().sweep(60 * 60 * 1000);

    expect(await eventsOf(workspaceId)).toEqual(['document-insights.extraction.failed']);
    await expectCountersExact(workspaceId);
  });
});
