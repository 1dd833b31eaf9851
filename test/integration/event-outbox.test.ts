import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { deterministicEventId, type EventEnvelope } from '../../src/events/event-envelope.ts';
import { DynamoEventRecords } from '../../src/events/aws/dynamodb-event-records.ts';
import { eventKey } from '../../src/events/aws/event-keys.ts';
import { SqsEventHandOff } from '../../src/events/aws/sqs-event-hand-off.ts';
import { EventOutbox } from '../../src/events/event-outbox.ts';
import { EventRecorder } from '../../src/events/event-recorder.ts';
import { eventLister, eventRecorder } from '../../src/composition/events.ts';
import { sqsClient } from '../../src/infrastructure/sqs-client.ts';
import { ExtractionClient, waitForEvents, workspaceKey } from '../support/extraction-client.ts';
import { invoicePdf } from '../support/extraction-documents.ts';
import { webhookDeliveryConsumer } from '../../src/webhooks/triggers.ts';
import { startStackUnderTest, type StackUnderTest } from '../support/local-stack-harness.ts';
import { recordsTable } from '../support/records-table.ts';
import { captureLogLines } from '../support/log-lines.ts';

// The outbox guarantee over the embedded stack: every recorded event reaches the webhook delivery
// queue, at once or through the drain, and the drain hands off nothing twice once it is cleared.

let stack: StackUnderTest;
let client: ExtractionClient;
const workspaceId = 'ws_event_outbox';

beforeAll(async () => {
  // This file reads the delivery queue itself: the manifest's consumer would take its messages.
  stack = await startStackUnderTest({ omittedTriggers: [webhookDeliveryConsumer.name] });
  client = new ExtractionClient(stack, await workspaceKey(workspaceId));
});

afterAll(async () => {
  await stack?.stop();
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** Every message on the delivery queue now (each deleted once read), parsed. */
async function receiveAllDeliveryMessages(): Promise<Record<string, unknown>[]> {
  const queueUrl = stack.resources.webhookDeliveryQueueUrl;
  const bodies: Record<string, unknown>[] = [];
  for (;;) {
    const { Messages = [] } = await sqsClient().send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    if (Messages.length === 0) return bodies;
    for (const message of Messages) {
      bodies.push(JSON.parse(message.Body!));
      await sqsClient().send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }));
    }
  }
}

/** A drain that takes every entry, however young (the deployed one leaves 30 s to the inline hand-off). */
/** The records table's events, through the adapter the functions use. */
function eventRecords(): DynamoEventRecords {
  const { client: documents, tableName } = recordsTable();
  return new DynamoEventRecords(documents, tableName);
}

function immediateDrain(): EventOutbox {
  return new EventOutbox(eventRecords(), new SqsEventHandOff(sqsClient(), () => stack.resources.webhookDeliveryQueueUrl), { graceMs: 0 });
}

async function pendingEventIds(): Promise<string[]> {
  const ids: string[] = [];
  for await (const entry of immediateDrain().pending()) ids.push(entry.eventId);
  return ids;
}

async function eventItem(eventId: string) {
  const { client: documents, tableName } = recordsTable();
  return (await documents.send(new GetCommand({ TableName: tableName, Key: eventKey(eventId), ConsistentRead: true }))).Item;
}

function anEvent(seed: string, occurredAt: string, eventType: EventEnvelope['eventType'] = 'workflow.run.failed'): EventEnvelope {
  return { eventId: deterministicEventId(seed, occurredAt), eventType, occurredAt, apiVersion: 'v1', data: { runId: seed } };
}

describe('the event outbox', () => {
  it('hands the event of an extraction reaching COMPLETED to the delivery queue exactly once, and leaves no outbox entry', async () => {
    const fileId = await client.uploadFile(await invoicePdf(), 'invoice.pdf');
    const created = await client.create({ document: { fileId } });

    const extraction = await client.waitForTerminal(created.body.id);
    const [event] = await waitForEvents(workspaceId, created.body.id, 1);
    const messages = await receiveAllDeliveryMessages();

    expect(extraction.status).toBe('COMPLETED');
    expect(messages.filter((message) => message.eventId === event!.eventId)).toEqual([
      { kind: 'event-recorded', workspaceId, eventId: event!.eventId, eventType: 'document-insights.extraction.completed' },
    ]);
    // The message is sent before the outbox entry is cleared; both are done by now.
    await vi.waitFor(async () => expect((await eventItem(event!.eventId))?.gsi6pk).toBeUndefined(), { timeout: 5_000 });
    expect(await pendingEventIds()).not.toContain(event!.eventId);
  });

  it('hands off, through the drain, an event whose recorder stopped before its hand-off; a second drain hands off nothing', async () => {
    const dyingOutbox = new EventOutbox(eventRecords(), { send: async () => Promise.reject(new Error('the process stopped here')) });
    captureLogLines(); // the expected warnings stay out of the test output
    const event = anEvent(`run_died_${Date.now()}`, new Date().toISOString());

    expect(await new EventRecorder(eventRecords(), dyingOutbox).record(workspaceId, event)).toBe(true);
    expect(await pendingEventIds()).toContain(event.eventId);

    const first = await immediateDrain().drain();
    const messages = await receiveAllDeliveryMessages();
    const second = await immediateDrain().drain();

    expect(first).toEqual({ handedOff: 1, failed: 0 });
    expect(messages.filter((message) => message.eventId === event.eventId)).toEqual([
      { kind: 'event-recorded', workspaceId, eventId: event.eventId, eventType: 'workflow.run.failed' },
    ]);
    expect(second).toEqual({ handedOff: 0, failed: 0 });
    expect(await pendingEventIds()).not.toContain(event.eventId);
    expect((await receiveAllDeliveryMessages()).filter((message) => message.eventId === event.eventId)).toEqual([]);
  });

  it('leaves entries younger than the grace period to their inline hand-off', async () => {
    const dyingOutbox = new EventOutbox(eventRecords(), { send: async () => Promise.reject(new Error('the process stopped here')) });
    captureLogLines(); // the expected warnings stay out of the test output
    const event = anEvent(`run_young_${Date.now()}`, new Date().toISOString());
    await new EventRecorder(eventRecords(), dyingOutbox).record(workspaceId, event);
    const patient = new EventOutbox(eventRecords(), new SqsEventHandOff(sqsClient(), () => stack.resources.webhookDeliveryQueueUrl), { graceMs: 60_000 });

    expect(await patient.drain()).toEqual({ handedOff: 0, failed: 0 });
    expect(await pendingEventIds()).toContain(event.eventId);

    await immediateDrain().drain();
    await receiveAllDeliveryMessages();
  });
});

describe('the event lister', () => {
  const listedWorkspace = 'ws_event_listing';
  const hour = 3_600_000;
  const times = [3, 2, 1].map((hoursAgo) => new Date(Math.floor(Date.now() / hour) * hour - hoursAgo * hour).toISOString());
  // Past its 90 days, not yet removed by TTL (which may take days): never listed.
  const expired = anEvent('run_expired', new Date(Date.now() - 91 * 24 * hour).toISOString());
  const events = [
    anEvent('run_a', times[0]!, 'workflow.run.completed'),
    anEvent('run_b', times[1]!, 'workflow.run.failed'),
    anEvent('run_c', times[2]!, 'workflow.run.completed'),
  ];

  beforeAll(async () => {
    for (const event of [expired, ...events]) await eventRecorder().record(listedWorkspace, event);
  });

  it('lists a workspace\'s events by occurredAt, paged, with exact totals and without data', async () => {
    const first = await eventLister().list(listedWorkspace, { page: 0, size: 2, sort: 'desc' });
    const second = await eventLister().list(listedWorkspace, { page: 1, size: 2, sort: 'desc' });
    const ascending = await eventLister().list(listedWorkspace, { page: 0, size: 10, sort: 'asc' });

    expect(first.totalItems).toBe(3);
    expect(first.events.map((event) => event.eventId)).toEqual([events[2]!.eventId, events[1]!.eventId]);
    expect(second.events.map((event) => event.eventId)).toEqual([events[0]!.eventId]);
    expect(ascending.events).toEqual(events.map(({ data: _data, ...summary }) => summary));
  });

  it('narrows by occurredAt window (inclusive) and by event type, with totals to match', async () => {
    const window = await eventLister().list(listedWorkspace, { page: 0, size: 10, sort: 'asc', from: times[1], to: times[2] });
    const completed = await eventLister().list(listedWorkspace, { page: 0, size: 10, sort: 'asc', eventTypes: ['workflow.run.completed'] });
    const none = await eventLister().list(listedWorkspace, { page: 0, size: 10, sort: 'asc', eventTypes: [] });

    expect(window.totalItems).toBe(2);
    expect(window.events.map((event) => event.eventId)).toEqual([events[1]!.eventId, events[2]!.eventId]);
    expect(completed.totalItems).toBe(2);
    expect(completed.events.map((event) => event.eventId)).toEqual([events[0]!.eventId, events[2]!.eventId]);
    expect(none).toEqual({ events: [], totalItems: 0 });
  });

  it('returns one event with its data, to its own workspace only', async () => {
    expect(await eventLister().get(listedWorkspace, events[1]!.eventId)).toEqual(events[1]);
    expect(await eventLister().get('ws_someone_else', events[1]!.eventId)).toBeUndefined();
    expect(await eventLister().get(listedWorkspace, expired.eventId)).toBeUndefined();
  });
});
