import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { deterministicEventId, type EventEnvelope } from '../../../src/events/event-envelope.ts';
import { DynamoEventRecords } from '../../../src/events/aws/dynamodb-event-records.ts';
import { outboxShardCount } from '../../../src/events/aws/event-keys.ts';
import { SqsEventHandOff } from '../../../src/events/aws/sqs-event-hand-off.ts';
import { EventOutbox } from '../../../src/events/event-outbox.ts';
import { EventRecorder } from '../../../src/events/event-recorder.ts';
import { extractionEventOf } from '../../../src/extractions/extraction-events.ts';
import { captureLogLines } from '../../support/log-lines.ts';
import { conditionalFailure, documentClient, failedExtractionRecord } from '../../support/mocked-records.ts';

const documents = mockClient(DynamoDBDocumentClient);
const sqs = mockClient(SQSClient);

beforeEach(() => {
  documents.reset();
  sqs.reset();
  vi.restoreAllMocks();
});

const queueUrl = 'http://sqs.local/000000000000/deliveries';
const recordedAt = new Date('2026-01-01T10:00:06.000Z');

const record = failedExtractionRecord;

function outboxWith(options = { graceMs: 30_000, now: () => recordedAt.getTime() }) {
  return new EventOutbox(new DynamoEventRecords(documentClient(), 'records'), new SqsEventHandOff(new SQSClient({ region: 'us-east-1' }), () => queueUrl), options);
}

function recorder(payloads?: ConstructorParameters<typeof EventRecorder>[2], inlineLimitBytes?: number) {
  return new EventRecorder(new DynamoEventRecords(documentClient(), 'records'), outboxWith(), payloads, inlineLimitBytes, () => recordedAt);
}

describe('deterministicEventId', () => {
  it('gives one occurrence one id, in occurredAt order', () => {
    const first = deterministicEventId('run_1', '2026-01-01T10:00:00.000Z');

    expect(deterministicEventId('run_1', '2026-01-01T10:00:00.000Z')).toBe(first);
    expect(deterministicEventId('run_2', '2026-01-01T10:00:00.000Z')).not.toBe(first);
    expect(deterministicEventId('run_1', '2026-01-01T10:00:01.000Z') > first).toBe(true);
    expect(first).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
  });
});

describe('EventRecorder', () => {
  it('records an event once: a repeated put is refused by its condition and reported', async () => {
    documents.on(PutCommand).resolvesOnce({}).rejects(conditionalFailure());
    documents.on(UpdateCommand).resolves({});
    sqs.on(SendMessageCommand).resolves({});
    const event = extractionEventOf(record, undefined);
    const events = recorder();

    expect(await events.record('ws_a', event)).toBe(true);
    expect(await events.record('ws_a', event)).toBe(false);
    const put = documents.commandCalls(PutCommand)[0]!.args[0].input;
    expect(put.ConditionExpression).toBe('attribute_not_exists(pk)');
    expect(put.Item).toMatchObject({ pk: `EVENT#${event.eventId}`, gsi1pk: 'WS#ws_a#EVENTS', eventType: 'document-insights.extraction.failed' });
    expect(put.Item!.expiresAt).toBe(Math.floor(Date.parse(record.completedAt!) / 1000) + 90 * 86_400);
    // The repeated record is the first recorder's (or the drain's) to hand off.
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(1);
  });

  it('writes the event into the outbox in the same conditional put', async () => {
    documents.on(PutCommand).resolves({});
    documents.on(UpdateCommand).resolves({});
    sqs.on(SendMessageCommand).resolves({});
    const event = extractionEventOf(record, undefined);

    await recorder().record('ws_a', event);

    const item = documents.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(item.gsi6pk).toMatch(new RegExp(`^EVT#OUTBOX#[0-${outboxShardCount - 1}]$`));
    expect(item).toMatchObject({ gsi6sk: `${recordedAt.toISOString()}#${event.eventId}`, recordedAt: recordedAt.toISOString() });
  });

  it('keeps data too large for an item in the payload store, and the envelope in the table', async () => {
    documents.on(PutCommand).resolves({});
    documents.on(UpdateCommand).resolves({});
    sqs.on(SendMessageCommand).resolves({});
    const objects: Record<string, string> = {};
    const event = extractionEventOf({ ...record, labels: { note: 'x'.repeat(200) } }, undefined);

    await recorder({ put: async (key, body) => void (objects[key] = body) }, 100).record('ws_a', event);

    const item = documents.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    expect(item.data).toBeUndefined();
    expect(item.dataObjectKey).toBe(`events/ws_a/${event.eventId}.json`);
    expect(JSON.parse(objects[item.dataObjectKey as string]!)).toEqual(event.data);
    expect(item).toMatchObject({ eventId: event.eventId, eventType: event.eventType, apiVersion: 'v1' });
  });

  it('passes throttling on, for the task to retry', async () => {
    documents.on(PutCommand).rejects(Object.assign(new Error('slow down'), { name: 'ProvisionedThroughputExceededException' }));

    await expect(recorder().record('ws_a', extractionEventOf(record, undefined))).rejects.toThrow('slow down');
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
  });

  it('reports a recorded event whose hand-off failed as recorded, and leaves it in the outbox', async () => {
    documents.on(PutCommand).resolves({});
    documents.on(UpdateCommand).resolves({});
    sqs.on(SendMessageCommand).rejects(new Error('queue unavailable'));
    const log = captureLogLines();
    const event = extractionEventOf(record, undefined);

    expect(await recorder().record('ws_a', event)).toBe(true);
    log.restore();

    expect(documents.commandCalls(UpdateCommand)).toHaveLength(0); // the outbox attributes stay
    expect(log.lines.filter((line) => line.level === 'warn')[0]).toMatchObject({ level: 'warn', eventId: event.eventId });
  });
});

describe('EventOutbox', () => {
  const entry = { workspaceId: 'ws_a', eventId: 'evt_01JZ0000000000000000000000', eventType: 'workflow.run.completed' as const };

  it('sends the event-recorded message, then clears the outbox attributes on condition they are there', async () => {
    const order: string[] = [];
    sqs.on(SendMessageCommand).callsFake(() => (order.push('send'), {}));
    documents.on(UpdateCommand).callsFake(() => (order.push('clear'), {}));

    await outboxWith().handOff(entry);

    expect(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input).toEqual({
      QueueUrl: queueUrl,
      MessageBody: JSON.stringify({ kind: 'event-recorded', workspaceId: 'ws_a', eventId: entry.eventId, eventType: 'workflow.run.completed' }),
    });
    const update = documents.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(update).toMatchObject({ Key: { pk: `EVENT#${entry.eventId}`, sk: 'EVENT' }, UpdateExpression: 'REMOVE gsi6pk, gsi6sk', ConditionExpression: 'attribute_exists(gsi6pk)' });
    expect(order).toEqual(['send', 'clear']);
  });

  it('leaves the outbox attributes when the send fails', async () => {
    sqs.on(SendMessageCommand).rejects(new Error('queue unavailable'));

    await expect(outboxWith().handOff(entry)).rejects.toThrow('queue unavailable');

    expect(documents.commandCalls(UpdateCommand)).toHaveLength(0);
  });

  it('accepts an outbox entry already cleared by a racing hand-off', async () => {
    sqs.on(SendMessageCommand).resolves({});
    documents.on(UpdateCommand).rejects(conditionalFailure());

    await expect(outboxWith().handOff(entry)).resolves.toBeUndefined();
  });

  it('drains every shard up to the grace period, and counts a failed hand-off without stopping', async () => {
    const items = [
      { ...entry, eventId: 'evt_01JZ0000000000000000000001', recordedAt: '2026-01-01T09:00:00.000Z' },
      { ...entry, eventId: 'evt_01JZ0000000000000000000002', recordedAt: '2026-01-01T09:00:01.000Z' },
    ];
    documents.on(QueryCommand).resolves({ Items: [] });
    documents.on(QueryCommand, { ExpressionAttributeValues: { ':shard': 'EVT#OUTBOX#0', ':before': '2026-01-01T10:00:05.000Z' } }).resolves({ Items: items });
    documents.on(UpdateCommand).resolves({});
    sqs.on(SendMessageCommand).rejectsOnce(new Error('queue unavailable')).resolves({});
    captureLogLines(); // the drain's warning for the failed entry stays out of the test output

    const report = await outboxWith({ graceMs: 1_000, now: () => recordedAt.getTime() }).drain();

    expect(report).toEqual({ handedOff: 1, failed: 1 });
    const queried = documents.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(queried.map((input) => input.ExpressionAttributeValues![':shard'])).toEqual(Array.from({ length: outboxShardCount }, (_, shard) => `EVT#OUTBOX#${shard}`));
    expect(queried[0]).toMatchObject({ IndexName: 'gsi6', KeyConditionExpression: 'gsi6pk = :shard AND gsi6sk < :before' });
    expect(documents.commandCalls(UpdateCommand).map((call) => call.args[0].input.Key!.pk)).toEqual(['EVENT#evt_01JZ0000000000000000000002']);
  });
});

describe('the event types', () => {
  it('are the five of the spec', async () => {
    const { eventTypes } = await import('../../../src/events/event-envelope.ts');
    const envelope: EventEnvelope = { eventId: 'evt_x', eventType: 'workflow.run.failed', occurredAt: recordedAt.toISOString(), apiVersion: 'v1', data: {} };

    expect(eventTypes).toEqual([
      'document-insights.extraction.completed',
      'document-insights.extraction.failed',
      'document-insights.extraction.rejected',
      'workflow.run.completed',
      'workflow.run.failed',
    ]);
    expect(eventTypes).toContain(envelope.eventType);
  });
});
