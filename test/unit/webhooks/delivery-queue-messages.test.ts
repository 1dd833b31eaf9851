import { beforeEach, describe, expect, it } from 'vitest';
import { newIdentifier } from '../../../src/infrastructure/identifiers.ts';
import { DeliveryAttempts, type DeliverySubscription } from '../../../src/webhooks/delivery-attempts.ts';
import { DeliveryQueueMessages, MalformedDeliveryMessage, parseDeliveryQueueMessage } from '../../../src/webhooks/delivery-queue-messages.ts';
import type { RecordedEvent } from '../../../src/webhooks/event-payloads.ts';
import { retrySchedule } from '../../../src/webhooks/retry-schedule.ts';
import { fakeSign, InMemoryDeliveryStore, InMemoryEvents, InMemorySubscriptions, RecordingAttemptQueue, scriptedReceiver } from '../../support/memory/webhook-deliveries.ts';

// The delivery queue consumer's domain side: which bodies are messages, and what each kind does.

const workspaceId = 'ws_messages';
const eventId = newIdentifier('evt');

function anEvent(): RecordedEvent {
  return {
    workspaceId,
    envelope: { eventId, eventType: 'document-insights.extraction.completed', occurredAt: '2026-03-01T10:00:00.000Z', apiVersion: 'v1', data: {} },
  };
}

function aSubscription(overrides: Partial<DeliverySubscription> = {}): DeliverySubscription {
  return { id: newIdentifier('sub'), workspaceId, status: 'active', endpointUrl: 'https://hooks.example.com/h', eventTypes: ['document-insights.extraction.completed'], ...overrides };
}

let store: InMemoryDeliveryStore;
let queue: RecordingAttemptQueue;
let subscriptions: InMemorySubscriptions;
let events: InMemoryEvents;
let messages: DeliveryQueueMessages;
let receiver: ReturnType<typeof scriptedReceiver>;

beforeEach(() => {
  store = new InMemoryDeliveryStore();
  queue = new RecordingAttemptQueue();
  subscriptions = new InMemorySubscriptions();
  events = new InMemoryEvents();
  receiver = scriptedReceiver([200]);
  const attempts = new DeliveryAttempts({ store, subscriptions, events, queue, sign: fakeSign, send: receiver.send, schedule: retrySchedule([0, 60, 120, 240, 480, 960]) });
  messages = new DeliveryQueueMessages({ attempts, subscriptions, events });
});

describe('parseDeliveryQueueMessage', () => {
  it('reads the outbox hand-off and an attempt message', () => {
    const handOff = { kind: 'event-recorded', workspaceId, eventId, eventType: 'document-insights.extraction.completed' };
    const attempt = { kind: 'attempt', deliveryId: newIdentifier('dlv'), eventId, attempt: 2, notBefore: '2026-03-01T10:20:00.000Z' };

    expect(parseDeliveryQueueMessage(JSON.stringify(handOff))).toEqual(handOff);
    expect(parseDeliveryQueueMessage(JSON.stringify(attempt))).toEqual(attempt);
  });

  it.each([
    ['not JSON', '{"kind":'],
    ['an unknown kind', JSON.stringify({ kind: 'surprise', eventId })],
    ['an attempt without a number', JSON.stringify({ kind: 'attempt', deliveryId: newIdentifier('dlv'), eventId })],
    ['attempt 0', JSON.stringify({ kind: 'attempt', deliveryId: newIdentifier('dlv'), eventId, attempt: 0 })],
    ['an unknown event type', JSON.stringify({ kind: 'event-recorded', workspaceId, eventId, eventType: 'extraction.done' })],
    ['an event id without its prefix', JSON.stringify({ kind: 'event-recorded', workspaceId, eventId: 'abc', eventType: 'workflow.run.failed' })],
  ])('refuses %s as malformed', (_case, body) => {
    expect(() => parseDeliveryQueueMessage(body)).toThrow(MalformedDeliveryMessage);
  });
});

describe('DeliveryQueueMessages', () => {
  it('fans a recorded event out to the active, matching subscriptions of its workspace only', async () => {
    events.add(anEvent());
    const matching = aSubscription();
    subscriptions.add(matching);
    subscriptions.add(aSubscription({ status: 'paused' }));
    subscriptions.add(aSubscription({ eventTypes: ['workflow.run.failed'] }));
    subscriptions.add(aSubscription({ workspaceId: 'ws_elsewhere' }));

    const outcome = await messages.handle({ kind: 'event-recorded', workspaceId, eventId, eventType: 'document-insights.extraction.completed' });

    expect(outcome).toEqual({ kind: 'event-recorded', deliveries: 1, listeners: 0 });
    expect([...store.deliveries.values()].map((delivery) => delivery.subscriptionId)).toEqual([matching.id]);
    // The first attempt went out from the fan-out itself: no queue message for it.
    expect(receiver.requests.map((request) => [request.endpointUrl, request.eventId, request.attempt])).toEqual([[matching.endpointUrl, eventId, 1]]);
    expect([...store.deliveries.values()]).toEqual([expect.objectContaining({ status: 'SUCCEEDED', attemptCount: 1 })]);
    expect(queue.take()).toEqual([]);
  });

  it('fails a hand-off whose event is not recorded in that workspace, so the message comes back (or ends in the DLQ)', async () => {
    events.add(anEvent());
    subscriptions.add(aSubscription({ workspaceId: 'ws_elsewhere' }));

    await expect(messages.handle({ kind: 'event-recorded', workspaceId: 'ws_elsewhere', eventId, eventType: 'document-insights.extraction.completed' })).rejects.toThrow(
      /not recorded/,
    );
    expect(store.deliveries.size).toBe(0);
  });

  it('runs the listeners of the event type on the same hand-off, and only those', async () => {
    events.add(anEvent());
    const heard: string[] = [];
    const listening = new DeliveryQueueMessages({
      attempts: new DeliveryAttempts({ store, subscriptions, events, queue, sign: fakeSign, send: async () => undefined as never, schedule: retrySchedule([0]) }),
      subscriptions,
      events,
      listeners: [
        { name: 'extractions', eventTypes: ['document-insights.extraction.completed'], onEventRecorded: async (event) => void heard.push(`extractions:${event.envelope.eventId}`) },
        { name: 'runs', eventTypes: ['workflow.run.completed'], onEventRecorded: async () => void heard.push('runs') },
      ],
    });

    const outcome = await listening.handle({ kind: 'event-recorded', workspaceId, eventId, eventType: 'document-insights.extraction.completed' });

    expect(outcome).toEqual({ kind: 'event-recorded', deliveries: 0, listeners: 1 });
    expect(heard).toEqual([`extractions:${eventId}`]);
  });

  it('fails the hand-off when a listener fails, after fan-out was done, so the message comes back for both', async () => {
    events.add(anEvent());
    subscriptions.add(aSubscription());
    const failing = new DeliveryQueueMessages({
      attempts: new DeliveryAttempts({ store, subscriptions, events, queue, sign: fakeSign, send: receiver.send, schedule: retrySchedule([0]) }),
      subscriptions,
      events,
      listeners: [{ name: 'broken', eventTypes: ['document-insights.extraction.completed'], onEventRecorded: async () => Promise.reject(new Error('SFN throttled')) }],
    });

    await expect(failing.handle({ kind: 'event-recorded', workspaceId, eventId, eventType: 'document-insights.extraction.completed' })).rejects.toThrow('SFN throttled');
    expect(store.deliveries.size).toBe(1);
  });

  it('hands an attempt message to the engine: a message for no delivery is a duplicate', async () => {
    expect(await messages.handle({ kind: 'attempt', deliveryId: newIdentifier('dlv'), eventId, attempt: 1 })).toEqual({ kind: 'attempt', action: 'duplicate' });
  });
});
