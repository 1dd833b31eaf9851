import { beforeEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../../src/platform/errors.ts';
import type { DeliverySubscription } from '../../../src/webhooks/delivery-attempts.ts';
import { newDeliveryRecord, recoveryDeliveryId, type DeliveryRecord } from '../../../src/webhooks/delivery-records.ts';
import { FailedDeliveryRecovery, recoveriesPerRequest, recoveryWriterLifetimeMs } from '../../../src/webhooks/delivery-recovery.ts';
import { InMemoryDeliveryStore, InMemorySubscriptions, RecordingAttemptQueue } from '../../support/memory/webhook-deliveries.ts';

// Recover over the engine's in-memory ports: which deliveries are sent again, once each, and what a
// request that stopped half-way leaves for the next one.

const workspaceId = 'ws_a';
const subscriptionId = 'sub_01JZ00000000000000000000S1';

let store: InMemoryDeliveryStore;
let queue: RecordingAttemptQueue;
let subscriptions: InMemorySubscriptions;
let clock: Date;

function aSubscription(overrides: Partial<DeliverySubscription> = {}): DeliverySubscription {
  return { id: subscriptionId, workspaceId, status: 'active', endpointUrl: 'https://receiver.example/hooks', eventTypes: ['document-insights.extraction.completed'], ...overrides };
}

let eventNumber = 0;
/** A delivery of its own event that ended `status` at `endedAt`. */
function anEndedDelivery(endedAt: string, overrides: Partial<DeliveryRecord> = {}): DeliveryRecord {
  eventNumber += 1;
  const occurredAt = new Date(Date.parse(endedAt) - 60_000).toISOString();
  const delivery = newDeliveryRecord(
    { eventId: `evt_01JZ000000000000000000${String(eventNumber).padStart(4, '0')}`, subscriptionId, workspaceId, eventType: 'document-insights.extraction.completed', occurredAt },
    { id: `dlv_01JZ000000000000000000${String(eventNumber).padStart(4, '0')}`, trigger: 'automatic', maxAttempts: 6, now: new Date(occurredAt), delaySeconds: 0 },
  );
  const ended: DeliveryRecord = { ...delivery, status: 'FAILED', attemptCount: 6, updatedAt: endedAt, nextAttemptAt: null, lastResponseStatus: 503, ...overrides };
  store.deliveries.set(ended.id, ended);
  return ended;
}

const recovery = () => new FailedDeliveryRecovery({ store, subscriptions, queue, now: () => clock });
const queuedDeliveryIds = () => queue.take().map(({ message }) => message.deliveryId);

beforeEach(() => {
  store = new InMemoryDeliveryStore();
  queue = new RecordingAttemptQueue();
  subscriptions = new InMemorySubscriptions();
  subscriptions.add(aSubscription());
  clock = new Date('2026-03-02T12:00:00.000Z');
});

describe('recoverFailedDeliveries', () => {
  it('sends again, as one manual delivery each, the deliveries that ended FAILED since the time, and no other', async () => {
    const failedBefore = anEndedDelivery('2026-03-02T08:59:59.999Z');
    const failedAt = anEndedDelivery('2026-03-02T09:00:00.000Z');
    const failedAfter = anEndedDelivery('2026-03-02T11:00:00.000Z');
    anEndedDelivery('2026-03-02T11:00:00.000Z', { status: 'SUCCEEDED' });
    anEndedDelivery('2026-03-02T11:00:00.000Z', { status: 'PENDING', nextAttemptAt: '2026-03-02T12:01:00.000Z' });
    anEndedDelivery('2026-03-02T11:00:00.000Z', { subscriptionId: 'sub_01JZ00000000000000000000S2' });

    const answer = await recovery().recoverFailedDeliveries(workspaceId, subscriptionId, '2026-03-02T10:00:00+01:00');

    expect(answer).toEqual({ recovered: 2, hasMore: false });
    const recoveries = [failedAt, failedAfter].map((failed) => store.deliveries.get(recoveryDeliveryId(failed))!);
    expect(queuedDeliveryIds()).toEqual(recoveries.map((delivery) => delivery.id));
    for (const [index, failed] of [failedAt, failedAfter].entries()) {
      expect(recoveries[index]).toMatchObject({ eventId: failed.eventId, subscriptionId, trigger: 'manual', maxAttempts: 1, status: 'PENDING', attemptCount: 0, scheduledAttempt: 1 });
      expect(store.recoveredBy.get(failed.id)).toBe(recoveries[index]!.id);
    }
    expect(store.recoveredBy.has(failedBefore.id)).toBe(false);
  });

  it('sends nothing the second time', async () => {
    anEndedDelivery('2026-03-02T11:00:00.000Z');
    await recovery().recoverFailedDeliveries(workspaceId, subscriptionId, '2026-03-02T00:00:00Z');
    queue.take();

    const again = await recovery().recoverFailedDeliveries(workspaceId, subscriptionId, '2026-03-02T00:00:00Z');

    expect(again).toEqual({ recovered: 0, hasMore: false });
    expect(queue.take()).toEqual([]);
  });

  it(`recovers at most ${recoveriesPerRequest} per request and says more wait, until none do`, async () => {
    for (let count = 0; count < recoveriesPerRequest + 5; count += 1) anEndedDelivery('2026-03-02T11:00:00.000Z');

    const first = await recovery().recoverFailedDeliveries(workspaceId, subscriptionId, '2026-03-02T00:00:00Z');
    const second = await recovery().recoverFailedDeliveries(workspaceId, subscriptionId, '2026-03-02T00:00:00Z');

    expect(first).toEqual({ recovered: recoveriesPerRequest, hasMore: true });
    expect(second).toEqual({ recovered: 5, hasMore: false });
    expect(new Set(queuedDeliveryIds()).size).toBe(recoveriesPerRequest + 5);
  });

  it('queues, after a request that stopped before queueing, the recovery it wrote, once', async () => {
    const failed = anEndedDelivery('2026-03-02T11:00:00.000Z');
    queue.failNextSend = true;
    await expect(recovery().recoverFailedDeliveries(workspaceId, subscriptionId, '2026-03-02T00:00:00Z')).rejects.toThrow();
    expect(store.deliveries.has(recoveryDeliveryId(failed))).toBe(true);

    const whileTheWriterMayRun = await recovery().recoverFailedDeliveries(workspaceId, subscriptionId, '2026-03-02T00:00:00Z');
    clock = new Date(clock.getTime() + recoveryWriterLifetimeMs + 1);
    const afterIt = await recovery().recoverFailedDeliveries(workspaceId, subscriptionId, '2026-03-02T00:00:00Z');
    const later = await recovery().recoverFailedDeliveries(workspaceId, subscriptionId, '2026-03-02T00:00:00Z');

    expect(whileTheWriterMayRun.recovered).toBe(0);
    expect(afterIt.recovered).toBe(1);
    expect(later.recovered).toBe(0);
    expect(queuedDeliveryIds()).toEqual([recoveryDeliveryId(failed)]);
  });

  it('marks, after a request that stopped after queueing, without queueing again', async () => {
    const failed = anEndedDelivery('2026-03-02T11:00:00.000Z');
    const markRecovered = store.markRecovered.bind(store);
    store.markRecovered = async () => {
      throw new Error('stopped before marking');
    };
    await expect(recovery().recoverFailedDeliveries(workspaceId, subscriptionId, '2026-03-02T00:00:00Z')).rejects.toThrow();
    store.markRecovered = markRecovered;
    clock = new Date(clock.getTime() + recoveryWriterLifetimeMs + 1);

    const again = await recovery().recoverFailedDeliveries(workspaceId, subscriptionId, '2026-03-02T00:00:00Z');

    expect(again.recovered).toBe(0);
    expect(queuedDeliveryIds()).toEqual([recoveryDeliveryId(failed)]);
    expect(store.recoveredBy.get(failed.id)).toBe(recoveryDeliveryId(failed));
  });

  it('recovers a recovery that failed in turn, with a delivery of its own', async () => {
    const failed = anEndedDelivery('2026-03-02T11:00:00.000Z');
    await recovery().recoverFailedDeliveries(workspaceId, subscriptionId, '2026-03-02T00:00:00Z');
    const firstRecovery = store.deliveries.get(recoveryDeliveryId(failed))!;
    Object.assign(firstRecovery, { status: 'FAILED', attemptCount: 1, updatedAt: '2026-03-02T12:00:05.000Z' });
    queue.take();

    const again = await recovery().recoverFailedDeliveries(workspaceId, subscriptionId, '2026-03-02T00:00:00Z');

    expect(again.recovered).toBe(1);
    expect(queuedDeliveryIds()).toEqual([recoveryDeliveryId(firstRecovery)]);
  });

  it('answers 404 for another workspace\'s subscription or a malformed id, and 409 while it is paused', async () => {
    anEndedDelivery('2026-03-02T11:00:00.000Z');

    await expect(recovery().recoverFailedDeliveries('ws_b', subscriptionId, '2026-03-02T00:00:00Z')).rejects.toThrow(NotFoundError);
    await expect(recovery().recoverFailedDeliveries(workspaceId, 'sub_nope', '2026-03-02T00:00:00Z')).rejects.toThrow(NotFoundError);
    subscriptions.add(aSubscription({ status: 'paused' }));
    await expect(recovery().recoverFailedDeliveries(workspaceId, subscriptionId, '2026-03-02T00:00:00Z')).rejects.toThrow(ConflictError);
    expect(queue.take()).toEqual([]);
  });
});
