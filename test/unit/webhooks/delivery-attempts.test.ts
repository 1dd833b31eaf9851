import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { useMetricSink, type RecordedMetric } from '../../../src/infrastructure/metrics.ts';
import { ConflictError, NotFoundError } from '../../../src/platform/errors.ts';
import { DeliveryAttempts, subscriptionMatches, type DeliverySubscription, type SendWebhook } from '../../../src/webhooks/delivery-attempts.ts';
import { automaticDeliveryId } from '../../../src/webhooks/delivery-records.ts';
import type { RecordedEvent } from '../../../src/webhooks/event-payloads.ts';
import { retrySchedule } from '../../../src/webhooks/retry-schedule.ts';
import { fakeSign, InMemoryDeliveryStore, InMemoryEvents, InMemorySubscriptions, RecordingAttemptQueue, scriptedReceiver } from '../../support/memory/webhook-deliveries.ts';

const workspaceId = 'ws_a';
const eventId = 'evt_01JZ00000000000000000000E1';
const occurredAt = '2026-03-01T10:00:00.000Z';

function eventOf(overrides: Partial<RecordedEvent['envelope']> = {}, workspace = workspaceId): RecordedEvent {
  return {
    workspaceId: workspace,
    envelope: { eventId, eventType: 'document-insights.extraction.completed', occurredAt, apiVersion: 'v1', data: { extractionId: 'ext_1' }, ...overrides },
  };
}

function subscriptionOf(overrides: Partial<DeliverySubscription> = {}): DeliverySubscription {
  return {
    id: 'sub_01JZ00000000000000000000S1',
    workspaceId,
    status: 'active',
    endpointUrl: 'https://receiver.example/hooks',
    eventTypes: ['document-insights.extraction.completed'],
    ...overrides,
  };
}

let store: InMemoryDeliveryStore;
let queue: RecordingAttemptQueue;
let subscriptions: InMemorySubscriptions;
let events: InMemoryEvents;
let clock: Date;

beforeEach(() => {
  store = new InMemoryDeliveryStore();
  queue = new RecordingAttemptQueue();
  subscriptions = new InMemorySubscriptions();
  events = new InMemoryEvents();
  clock = new Date('2026-03-01T10:00:01.000Z');
  events.add(eventOf());
});

function engineWith(send: SendWebhook, delays = [0, 60, 120, 240, 480, 960]): DeliveryAttempts {
  return new DeliveryAttempts({ store, subscriptions, events, queue, sign: fakeSign, send, schedule: retrySchedule(delays), now: () => clock });
}

/** Consumes every queued message in order, the clock moving by each message's delay. */
async function drain(engine: DeliveryAttempts) {
  const results = [];
  for (let batch = queue.take(); batch.length > 0; batch = queue.take()) {
    for (const { message, delaySeconds } of batch) {
      clock = new Date(clock.getTime() + delaySeconds * 1000);
      results.push(await engine.processAttemptMessage(message));
    }
  }
  return results;
}

async function fanOut(engine: DeliveryAttempts, subscription = subscriptionOf()) {
  subscriptions.add(subscription);
  const [delivery] = await engine.createAutomaticDeliveries(eventOf(), [subscription]);
  return delivery!;
}

describe('subscriptionMatches', () => {
  const workflowEvent = eventOf({ eventType: 'workflow.run.completed', data: { runId: 'run_1', workflowId: 'wf_1' } });

  it('takes active subscriptions of the workspace that list the event type', () => {
    expect(subscriptionMatches(subscriptionOf(), eventOf())).toBe(true);
    expect(subscriptionMatches(subscriptionOf({ status: 'paused' }), eventOf())).toBe(false);
    expect(subscriptionMatches(subscriptionOf({ workspaceId: 'ws_b' }), eventOf())).toBe(false);
    expect(subscriptionMatches(subscriptionOf({ eventTypes: ['document-insights.extraction.failed'] }), eventOf())).toBe(false);
  });

  it('honours filters.workflowId for workflow events only', () => {
    const workflows = { eventTypes: ['workflow.run.completed', 'document-insights.extraction.completed'] };

    expect(subscriptionMatches(subscriptionOf({ ...workflows, filters: { workflowId: 'wf_1' } }), workflowEvent)).toBe(true);
    expect(subscriptionMatches(subscriptionOf({ ...workflows, filters: { workflowId: 'wf_2' } }), workflowEvent)).toBe(false);
    expect(subscriptionMatches(subscriptionOf({ ...workflows }), workflowEvent)).toBe(true);
    expect(subscriptionMatches(subscriptionOf({ ...workflows, filters: { workflowId: 'wf_2' } }), eventOf())).toBe(true);
  });
});

describe('createAutomaticDeliveries', () => {
  it('creates one PENDING delivery per matching subscription and queues its first attempt at once', async () => {
    const engine = engineWith(scriptedReceiver([200]).send);
    const matching = subscriptionOf();
    const paused = subscriptionOf({ id: 'sub_01JZ00000000000000000000S2', status: 'paused' });
    const otherType = subscriptionOf({ id: 'sub_01JZ00000000000000000000S3', eventTypes: ['workflow.run.failed'] });

    const deliveries = await engine.createAutomaticDeliveries(eventOf(), [matching, paused, otherType]);

    expect(deliveries).toEqual([
      expect.objectContaining({
        id: automaticDeliveryId(eventId, matching.id, occurredAt),
        eventId,
        subscriptionId: matching.id,
        trigger: 'automatic',
        status: 'PENDING',
        attemptCount: 0,
        maxAttempts: 6,
      }),
    ]);
    expect(queue.take()).toEqual([{ message: { kind: 'attempt', deliveryId: deliveries[0]!.id, eventId, attempt: 1 }, delaySeconds: 0 }]);
  });

  it('writes and queues nothing new on a second fan-out once the first attempt ran', async () => {
    const receiver = scriptedReceiver([200]);
    const engine = engineWith(receiver.send);
    const first = await fanOut(engine);
    await drain(engine);

    const again = await engine.createAutomaticDeliveries(eventOf(), [subscriptionOf()]);

    expect(again.map((delivery) => delivery.id)).toEqual([first.id]);
    expect(store.deliveries.size).toBe(1);
    expect(queue.take()).toEqual([]);
    expect(receiver.requests).toHaveLength(1);
  });

  it('a second fan-out before the first attempt ran queues it again, and the copy sends nothing', async () => {
    const receiver = scriptedReceiver([200]);
    const engine = engineWith(receiver.send);
    const first = await fanOut(engine);

    await engine.createAutomaticDeliveries(eventOf(), [subscriptionOf()]);
    const results = await drain(engine);

    expect(store.deliveries.size).toBe(1);
    expect(results.map((result) => result.action)).toEqual(['sent', 'duplicate']);
    expect(receiver.requests).toHaveLength(1);
    expect(store.attemptsOf(first.id)).toHaveLength(1);
  });

  it('queues the first attempt that a crash between the write and the message left unqueued', async () => {
    const engine = engineWith(scriptedReceiver([200]).send);
    subscriptions.add(subscriptionOf());
    const workingSendAll = queue.sendAll.bind(queue);
    queue.sendAll = async () => {
      throw new Error('queue unavailable');
    };
    await expect(engine.createAutomaticDeliveries(eventOf(), [subscriptionOf()])).rejects.toThrow('queue unavailable');
    queue.sendAll = workingSendAll;

    await engine.createAutomaticDeliveries(eventOf(), [subscriptionOf()]);

    expect(queue.take().map(({ message }) => message.attempt)).toEqual([1]);
  });
});

describe('createAutomaticDeliveries sending the first attempts itself', () => {
  const sendingNow = { sendFirstAttemptsNow: true };
  const second = subscriptionOf({ id: 'sub_01JZ00000000000000000000S2', endpointUrl: 'https://second.example/hooks' });

  it('makes attempt 1 of each new delivery in the fan-out, with no queue message for it', async () => {
    const receiver = scriptedReceiver([200, 500]);
    const engine = engineWith(receiver.send);
    subscriptions.add(subscriptionOf());
    subscriptions.add(second);

    await engine.createAutomaticDeliveries(eventOf(), [subscriptionOf(), second], sendingNow);

    expect(receiver.requests.map((request) => [request.eventId, request.attempt]).sort()).toEqual([[eventId, 1], [eventId, 1]]);
    const statuses = [...store.deliveries.values()].map((delivery) => [delivery.status, delivery.attemptCount]).sort();
    expect(statuses).toEqual([['PENDING', 1], ['SUCCEEDED', 1]]);
    for (const delivery of store.deliveries.values()) expect(store.attemptsOf(delivery.id).map((attempt) => attempt.number)).toEqual([1]);
    // Only the failed one is queued, for its second attempt.
    expect(queue.take().map(({ message }) => message.attempt)).toEqual([2]);
  });

  it('records the attempts that end together in one write, and a later one in a write of its own', async () => {
    const third = subscriptionOf({ id: 'sub_01JZ00000000000000000000S3', endpointUrl: 'https://third.example/hooks' });
    const { send } = scriptedReceiver([200]);
    // The third endpoint answers only once the first two are recorded.
    const engine = engineWith(async (request, sign) => {
      if (request.endpointUrl === third.endpointUrl) await new Promise((resolve) => setTimeout(resolve, 20));
      return send(request, sign);
    });
    for (const subscription of [subscriptionOf(), second, third]) subscriptions.add(subscription);

    await engine.createAutomaticDeliveries(eventOf(), [subscriptionOf(), second, third], sendingNow);

    expect(store.ownSettleBatches).toEqual([2, 1]);
    expect([...store.deliveries.values()].map((delivery) => [delivery.status, delivery.attemptCount])).toEqual([
      ['SUCCEEDED', 1],
      ['SUCCEEDED', 1],
      ['SUCCEEDED', 1],
    ]);
  });

  it('a second fan-out of the same event sends and queues nothing once the first made the attempts', async () => {
    const receiver = scriptedReceiver([200]);
    const engine = engineWith(receiver.send);
    subscriptions.add(subscriptionOf());

    await engine.createAutomaticDeliveries(eventOf(), [subscriptionOf()], sendingNow);
    await engine.createAutomaticDeliveries(eventOf(), [subscriptionOf()], sendingNow);

    expect(receiver.requests).toHaveLength(1);
    expect(queue.take()).toEqual([]);
    expect(store.deliveries.size).toBe(1);
  });

  it('a first fan-out stopping between the POST and the record fails, its delivery never written; its second fan-out creates it and sends attempt 1 again, recorded once', async () => {
    const receiver = scriptedReceiver([200]);
    const engine = engineWith(receiver.send);
    subscriptions.add(subscriptionOf());
    store.failNextSettle = true;
    await expect(engine.createAutomaticDeliveries(eventOf(), [subscriptionOf()], sendingNow)).rejects.toThrow('stopped before recording the outcome');
    const storedAfterCrash = store.deliveries.size;
    // Never written, it is still read as in flight (the claim item's list), attempt 1 pending.
    const [inFlight] = await store.listOfEvent(eventId);

    await engine.createAutomaticDeliveries(eventOf(), [subscriptionOf()], sendingNow);
    const results = await drain(engine);

    const [delivery] = [...store.deliveries.values()];
    expect(storedAfterCrash).toBe(0);
    expect(inFlight).toMatchObject({ status: 'PENDING', attemptCount: 0, firstAttemptStartedAt: expect.any(String) });
    expect(results).toEqual([]);
    expect(store.writesOf(delivery!.id)).toEqual(['create', 'settleAttempt']);
    expect(delivery).toMatchObject({ id: inFlight!.id, status: 'SUCCEEDED', attemptCount: 1 });
    expect(delivery!.firstAttemptStartedAt).toBeUndefined();
    expect(store.attemptsOf(delivery!.id)).toEqual([expect.objectContaining({ number: 1, outcome: 'succeeded' })]);
    expect(receiver.requests.map((request) => [request.eventId, request.attempt])).toEqual([[eventId, 1], [eventId, 1]]);
  });

  it('a fan-out stopping after a failed attempt 1 settled but before attempt 2 was queued fails; its second fan-out queues attempt 2', async () => {
    const receiver = scriptedReceiver([500, 200]);
    const engine = engineWith(receiver.send);
    subscriptions.add(subscriptionOf());
    queue.failNextSend = true;
    await expect(engine.createAutomaticDeliveries(eventOf(), [subscriptionOf()], sendingNow)).rejects.toThrow('stopped before queueing');
    expect([...store.deliveries.values()][0]).toMatchObject({ status: 'PENDING', attemptCount: 1 });
    expect(queue.take()).toEqual([]);

    await engine.createAutomaticDeliveries(eventOf(), [subscriptionOf()], sendingNow);
    expect(queue.sent.map(({ message }) => message.attempt)).toEqual([2]);
    await drain(engine);

    const [delivery] = [...store.deliveries.values()];
    expect(delivery).toMatchObject({ status: 'SUCCEEDED', attemptCount: 2 });
    expect(store.attemptsOf(delivery!.id).map(({ number, outcome }) => [number, outcome])).toEqual([[1, 'failed'], [2, 'succeeded']]);
    expect(receiver.requests.map((request) => request.attempt)).toEqual([1, 2]);
  });

  it('lets every attempt of the fan-out end before it reports one that failed', async () => {
    const receiver = scriptedReceiver([200]);
    // The second subscription's receiver answers later than the first's record fails.
    const engine = engineWith(async (request, sign) => {
      if (request.endpointUrl === second.endpointUrl) await new Promise((resolve) => setTimeout(resolve, 20));
      return receiver.send(request, sign);
    });
    subscriptions.add(subscriptionOf());
    subscriptions.add(second);
    store.failNextSettle = true;

    await expect(engine.createAutomaticDeliveries(eventOf(), [subscriptionOf(), second], sendingNow)).rejects.toThrow('stopped before recording the outcome');

    const settled = [...store.deliveries.values()].find((delivery) => delivery.subscriptionId === second.id);
    expect(settled).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1 });
  });

  it('holds attempt 1 when the subscription was paused after it was listed, and sends nothing', async () => {
    const receiver = scriptedReceiver([200]);
    const engine = engineWith(receiver.send);
    subscriptions.add(subscriptionOf({ status: 'paused' }));

    const [delivery] = await engine.createAutomaticDeliveries(eventOf(), [subscriptionOf()], sendingNow);

    expect(receiver.requests).toEqual([]);
    expect(store.deliveries.get(delivery!.id)).toMatchObject({ status: 'PENDING', attemptCount: 0, heldAttempt: 1 });
    expect(queue.take()).toEqual([]);
  });
});

describe('processAttemptMessage', () => {
  it('500 three times then 200: four attempts with their statuses, the delivery SUCCEEDED', async () => {
    const receiver = scriptedReceiver([500, 500, 500, 200]);
    const engine = engineWith(receiver.send);
    const delivery = await fanOut(engine);

    const delays = queue.sent.map(({ delaySeconds }) => delaySeconds);
    const results = await drain(engine);

    expect(results.map((result) => result.action)).toEqual(['sent', 'sent', 'sent', 'sent']);
    expect(store.attemptsOf(delivery.id).map(({ number, responseStatus, outcome }) => ({ number, responseStatus, outcome }))).toEqual([
      { number: 1, responseStatus: 500, outcome: 'failed' },
      { number: 2, responseStatus: 500, outcome: 'failed' },
      { number: 3, responseStatus: 500, outcome: 'failed' },
      { number: 4, responseStatus: 200, outcome: 'succeeded' },
    ]);
    expect(queue.sent.map(({ delaySeconds }) => delaySeconds)).toEqual([...delays, 60, 120, 240]);
    expect(await store.get(eventId, delivery.id)).toMatchObject({ status: 'SUCCEEDED', attemptCount: 4, lastResponseStatus: 200, nextAttemptAt: null });
    expect(receiver.requests.map((request) => [request.eventId, request.attempt])).toEqual([
      [eventId, 1],
      [eventId, 2],
      [eventId, 3],
      [eventId, 4],
    ]);
    expect(JSON.parse(receiver.requests[0]!.body)).toEqual(eventOf().envelope);
  });

  it('six failures: FAILED and no seventh message', async () => {
    const receiver = scriptedReceiver([503]);
    const engine = engineWith(receiver.send, [0, 1, 1, 1, 1, 1]);
    const delivery = await fanOut(engine);

    const results = await drain(engine);

    expect(receiver.requests).toHaveLength(6);
    expect(results.at(-1)).toEqual({ action: 'sent', outcome: 'failed', deliveryStatus: 'FAILED' });
    expect(queue.sent.map(({ message }) => message.attempt)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(await store.get(eventId, delivery.id)).toMatchObject({ status: 'FAILED', attemptCount: 6, nextAttemptAt: null });
  });

  describe('metrics', () => {
    let recorded: RecordedMetric[];
    beforeEach(() => {
      recorded = [];
      useMetricSink({ record: (metric) => recorded.push(metric) });
    });
    afterEach(() => useMetricSink(undefined));

    it('records each recorded attempt by outcome and, when the delivery ends, the attempts it used; a duplicate records nothing', async () => {
      const receiver = scriptedReceiver([500, 200]);
      const engine = engineWith(receiver.send);
      await fanOut(engine);
      const [first] = queue.take();
      await engine.processAttemptMessage(first!.message);
      await engine.processAttemptMessage(first!.message);
      await drain(engine);

      expect(recorded.map(({ name, dimension }) => `${name} ${dimension}`)).toEqual([
        'DeliveryAttempt failed',
        'DeliveryAttempt succeeded',
        'DeliveryAttemptsUsed SUCCEEDED',
      ]);
      expect(recorded.at(-1)!.value).toBe(2);
    });
  });

  it('sets nextAttemptAt to when the next attempt is due while the delivery is PENDING', async () => {
    const engine = engineWith(scriptedReceiver([500]).send);
    const delivery = await fanOut(engine);
    const [first] = queue.take();

    await engine.processAttemptMessage(first!.message);

    expect((await store.get(eventId, delivery.id))!.nextAttemptAt).toBe(new Date(clock.getTime() + 60_000).toISOString());
  });

  it('acknowledges a duplicate message with nothing sent, before and after the delivery ended', async () => {
    const receiver = scriptedReceiver([500, 200]);
    const engine = engineWith(receiver.send);
    await fanOut(engine);
    const [first] = queue.take();
    await engine.processAttemptMessage(first!.message);
    const queued = queue.sent.length;

    expect(await engine.processAttemptMessage(first!.message)).toEqual({ action: 'duplicate' });
    expect(await engine.processAttemptMessage({ ...first!.message, attempt: 3 })).toEqual({ action: 'duplicate' });
    expect(receiver.requests).toHaveLength(1);
    expect(queue.sent).toHaveLength(queued);

    await drain(engine);
    expect(await engine.processAttemptMessage({ ...first!.message, attempt: 2 })).toEqual({ action: 'duplicate' });
    expect(receiver.requests).toHaveLength(2);
  });

  it('a consumer stopping after the POST: the message again sends again and records the attempt once', async () => {
    const receiver = scriptedReceiver([200]);
    const engine = engineWith(receiver.send);
    const delivery = await fanOut(engine);
    const [first] = queue.take();
    store.failNextSettle = true;

    await expect(engine.processAttemptMessage(first!.message)).rejects.toThrow('stopped');
    // Nothing was recorded: the outcome and the settle are one write, which never happened.
    expect(store.attemptsOf(delivery.id)).toEqual([]);
    expect(await store.get(eventId, delivery.id)).toMatchObject({ status: 'PENDING', attemptCount: 0 });
    const result = await engine.processAttemptMessage(first!.message);

    expect(result).toEqual({ action: 'sent', outcome: 'succeeded', deliveryStatus: 'SUCCEEDED' });
    expect(receiver.requests.map((request) => request.eventId)).toEqual([eventId, eventId]);
    expect(store.attemptsOf(delivery.id)).toEqual([expect.objectContaining({ number: 1, outcome: 'succeeded', responseStatus: 200 })]);
    expect(await store.get(eventId, delivery.id)).toMatchObject({ status: 'SUCCEEDED', attemptCount: 1 });
  });

  it('two receipts of the same attempt at once: both POST, the first to record wins, the other records nothing', async () => {
    const receiver = scriptedReceiver([500, 200]);
    const engine = engineWith(receiver.send);
    const delivery = await fanOut(engine);
    const [first] = queue.take();

    const results = await Promise.all([engine.processAttemptMessage(first!.message), engine.processAttemptMessage(first!.message)]);

    expect(results.map((result) => result.action).sort()).toEqual(['duplicate', 'sent']);
    expect(receiver.requests.map((request) => [request.eventId, request.attempt])).toEqual([
      [eventId, 1],
      [eventId, 1],
    ]);
    const recorded = store.attemptsOf(delivery.id);
    expect(recorded).toHaveLength(1);
    const stored = await store.get(eventId, delivery.id);
    expect(stored).toMatchObject({ attemptCount: 1, lastResponseStatus: recorded[0]!.responseStatus });
    // Only the receipt that recorded attempt 1 queues attempt 2 (when it failed), once.
    expect(queue.take().map(({ message }) => message.attempt)).toEqual(stored!.status === 'PENDING' ? [2] : []);
  });

  it('a consumer stopping before the next message was queued: the message again queues it, then is a duplicate', async () => {
    const receiver = scriptedReceiver([500]);
    const engine = engineWith(receiver.send);
    await fanOut(engine);
    const [first] = queue.take();
    const send = queue.send.bind(queue);
    queue.send = async () => {
      throw new Error('stopped before queueing attempt 2');
    };
    await expect(engine.processAttemptMessage(first!.message)).rejects.toThrow('stopped');
    queue.send = send;

    expect(await engine.processAttemptMessage(first!.message)).toEqual({ action: 'rescheduled', attempt: 2 });
    expect(queue.take()).toEqual([{ message: expect.objectContaining({ attempt: 2 }), delaySeconds: 60 }]);
    expect(await engine.processAttemptMessage(first!.message)).toEqual({ action: 'duplicate' });
    expect(receiver.requests).toHaveLength(1);
  });

  it('paused: the attempt is held and not spent; resuming releases it and it is sent', async () => {
    const receiver = scriptedReceiver([200]);
    const engine = engineWith(receiver.send);
    const delivery = await fanOut(engine);
    subscriptions.add(subscriptionOf({ status: 'paused' }));

    expect(await drain(engine)).toEqual([{ action: 'held' }]);
    expect(receiver.requests).toHaveLength(0);
    expect(await store.get(eventId, delivery.id)).toMatchObject({ status: 'PENDING', attemptCount: 0, heldAttempt: 1 });
    expect(await store.listHeld(subscriptionOf().id)).toEqual([{ eventId, deliveryId: delivery.id, heldAttempt: 1 }]);

    subscriptions.add(subscriptionOf({ status: 'active' }));
    expect(await engine.releaseHeldDeliveries(subscriptionOf().id)).toBe(1);
    expect(await drain(engine)).toEqual([{ action: 'sent', outcome: 'succeeded', deliveryStatus: 'SUCCEEDED' }]);

    expect(receiver.requests.map((request) => request.attempt)).toEqual([1]);
    expect(await store.listHeld(subscriptionOf().id)).toEqual([]);
  });

  it('a deleted subscription ends the delivery FAILED with nothing sent', async () => {
    const receiver = scriptedReceiver([200]);
    const engine = engineWith(receiver.send);
    const delivery = await fanOut(engine);
    subscriptions.subscriptions.clear();

    expect(await drain(engine)).toEqual([{ action: 'ended' }]);
    expect(receiver.requests).toHaveLength(0);
    expect(await store.get(eventId, delivery.id)).toMatchObject({ status: 'FAILED', attemptCount: 0, nextAttemptAt: null });
  });

  it('an attempt whose event expired (held past the retention) ends the delivery FAILED with nothing sent', async () => {
    const receiver = scriptedReceiver([200]);
    const engine = engineWith(receiver.send);
    const delivery = await fanOut(engine);
    // The event's retention ends at occurredAt + 90 days; the purge (or TTL) removed it.
    clock = new Date(Date.parse(occurredAt) + 90 * 24 * 3600 * 1000);
    events.events.clear();

    expect(await drain(engine)).toEqual([{ action: 'ended' }]);
    expect(receiver.requests).toHaveLength(0);
    expect(await store.get(eventId, delivery.id)).toMatchObject({ status: 'FAILED', attemptCount: 0 });
  });

  it('an event not readable yet, within its retention, makes the message come back', async () => {
    const engine = engineWith(scriptedReceiver([200]).send);
    await fanOut(engine);
    events.events.clear();

    await expect(engine.processAttemptMessage(queue.take()[0]!.message)).rejects.toThrow('is not recorded');
  });

  it('reaches a delay above 900 s in two hops', async () => {
    const receiver = scriptedReceiver([500, 200]);
    const engine = engineWith(receiver.send, [0, 1000, 1, 1, 1, 1]);
    await fanOut(engine);
    await engine.processAttemptMessage(queue.take()[0]!.message);
    const settledAt = clock.getTime();

    const [firstHop] = queue.take();
    expect(firstHop).toEqual({
      message: expect.objectContaining({ attempt: 2, notBefore: new Date(settledAt + 1_000_000).toISOString() }),
      delaySeconds: 900,
    });
    clock = new Date(settledAt + 900_000);
    expect(await engine.processAttemptMessage(firstHop!.message)).toEqual({ action: 'deferred', delaySeconds: 100 });
    const [secondHop] = queue.take();
    expect(secondHop).toEqual({ message: firstHop!.message, delaySeconds: 100 });
    expect(receiver.requests).toHaveLength(1);

    clock = new Date(settledAt + 1_000_000);
    expect(await engine.processAttemptMessage(secondHop!.message)).toMatchObject({ action: 'sent', deliveryStatus: 'SUCCEEDED' });
  });
});

describe('writes per delivery', () => {
  it("a delivery of an event's first fan-out costs one write for its first attempt: the settle that records the outcome creates it", async () => {
    const receiver = scriptedReceiver([200]);
    const engine = engineWith(receiver.send);
    subscriptions.add(subscriptionOf());

    const [delivery] = await engine.createAutomaticDeliveries(eventOf(), [subscriptionOf()], { sendFirstAttemptsNow: true });

    expect(receiver.requests).toHaveLength(1);
    expect(store.writesOf(delivery!.id)).toEqual(['settleAttempt']);
    expect(await store.recentAttempts(delivery!, 100)).toEqual({ attempts: [expect.objectContaining({ number: 1, outcome: 'succeeded' })], omitted: false });
  });

  it("a first fan-out's delivery whose subscription was paused or deleted before its POST is written as created, then held or ended", async () => {
    const engine = engineWith(scriptedReceiver([]).send);
    const paused = subscriptionOf({ id: 'sub_01JZ00000000000000000000P1' });
    const deleted = subscriptionOf({ id: 'sub_01JZ00000000000000000000D1' });
    // Listed active by the fan-out; paused (and deleted) by the time its attempt reads them again.
    subscriptions.add({ ...paused, status: 'paused' });

    const [held, ended] = await engine.createAutomaticDeliveries(eventOf(), [paused, deleted], { sendFirstAttemptsNow: true });

    expect(store.writesOf(held!.id)).toEqual(['create', 'hold']);
    expect(store.writesOf(ended!.id)).toEqual(['create', 'endWithoutAttempt']);
    expect(await store.get(eventId, held!.id)).toMatchObject({ status: 'PENDING', attemptCount: 0, heldAttempt: 1 });
    expect(await store.listHeld(paused.id)).toEqual([{ eventId, deliveryId: held!.id, heldAttempt: 1 }]);
    expect(await store.get(eventId, ended!.id)).toMatchObject({ status: 'FAILED', attemptCount: 0 });
  });

  it("a queued first attempt (resend) costs two writes too: the delivery's put and the settle; the next attempt's mark starts at attempt 2", async () => {
    const receiver = scriptedReceiver([200, 500, 500, 200]);
    const engine = engineWith(receiver.send);
    const original = await fanOut(engine);
    await drain(engine);

    const resent = await engine.resendDelivery(workspaceId, eventId, original.id);
    await drain(engine);

    expect(store.writesOf(resent.id)).toEqual(['create', 'settleAttempt']);
    expect(await store.get(eventId, resent.id)).toMatchObject({ status: 'FAILED', attemptCount: 1 });

    // An automatic delivery whose attempt 1 failed: attempt 2 is queued and marked (a lost one is told from a duplicate by it).
    const failing = await fanOut(engine, subscriptionOf({ id: 'sub_01JZ00000000000000000000S2' }));
    await drain(engine);
    expect(store.writesOf(failing.id)).toEqual(['create', 'settleAttempt', 'markScheduled', 'settleAttempt']);
  });
});

describe('resendDelivery', () => {
  it('creates a new manual delivery with one attempt, whatever the old one’s state', async () => {
    const receiver = scriptedReceiver([200, 500]);
    const engine = engineWith(receiver.send);
    const original = await fanOut(engine);
    await drain(engine);

    const resent = await engine.resendDelivery(workspaceId, eventId, original.id);
    const results = await drain(engine);

    expect(resent).toMatchObject({ eventId, subscriptionId: original.subscriptionId, trigger: 'manual', maxAttempts: 1, status: 'PENDING', attemptCount: 0 });
    expect(resent.id).not.toBe(original.id);
    expect(results).toEqual([{ action: 'sent', outcome: 'failed', deliveryStatus: 'FAILED' }]);
    expect(await store.get(eventId, resent.id)).toMatchObject({ status: 'FAILED', attemptCount: 1 });
    expect(queue.take()).toEqual([]);
  });

  it('is a conflict while the subscription is paused or deleted', async () => {
    const engine = engineWith(scriptedReceiver([200]).send);
    const original = await fanOut(engine);

    subscriptions.add(subscriptionOf({ status: 'paused' }));
    await expect(engine.resendDelivery(workspaceId, eventId, original.id)).rejects.toBeInstanceOf(ConflictError);
    subscriptions.subscriptions.clear();
    await expect(engine.resendDelivery(workspaceId, eventId, original.id)).rejects.toBeInstanceOf(ConflictError);
  });

  it('does not find a delivery whose event expired, even while its subscription is paused', async () => {
    const engine = engineWith(scriptedReceiver([200]).send);
    const original = await fanOut(engine);
    subscriptions.add(subscriptionOf({ status: 'paused' }));
    clock = new Date(Date.parse(occurredAt) + 90 * 24 * 3600 * 1000);

    await expect(engine.resendDelivery(workspaceId, eventId, original.id)).rejects.toBeInstanceOf(NotFoundError);
    clock = new Date(clock.getTime() - 1000);
    await expect(engine.resendDelivery(workspaceId, eventId, original.id)).rejects.toBeInstanceOf(ConflictError);
  });

  it('does not find a delivery of another workspace, or one that does not exist', async () => {
    const engine = engineWith(scriptedReceiver([200]).send);
    const original = await fanOut(engine);

    await expect(engine.resendDelivery('ws_b', eventId, original.id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(engine.resendDelivery(workspaceId, eventId, 'dlv_01JZ00000000000000000000X9')).rejects.toBeInstanceOf(NotFoundError);
    await expect(engine.resendDelivery(workspaceId, eventId, 'not-an-id')).rejects.toBeInstanceOf(NotFoundError);
  });
});

