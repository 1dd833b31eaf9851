import pLimit from 'p-limit';
import { isIdentifier } from '../infrastructure/identifiers.ts';
import { ConflictError, NotFoundError } from '../platform/errors.ts';
import type { AttemptQueue, SubscriptionLookup } from './delivery-attempts.ts';
import { newDeliveryRecord, recoveryDeliveryId, type DeliveryRecord } from './delivery-records.ts';
import type { DeliveryStore } from './delivery-store.ts';
import { manualMaxAttempts } from './retry-schedule.ts';

// `POST /event-subscriptions/{id}/recover` (an extension, as Svix's "recover failed messages"): every
// delivery of the subscription that ended FAILED since a time is sent again as a new manual delivery
// with one attempt, as a resend would send it (docs/webhooks.md, Recover).

/** One request recovers at most this many deliveries; `hasMore` tells the caller to repeat it. */
export const recoveriesPerRequest = 100;

/**
 * A recovery delivery found written but never queued is left to the request that wrote it while that
 * request may still be running (an API function lives at most 29 s); older, its writer stopped, and
 * the attempt is queued now.
 */
export const recoveryWriterLifetimeMs = 30_000;

/** Writes to the table at once per request: 100 recoveries take a few round trips, not 100. */
const concurrentWrites = 10;

export interface RecoveredDeliveries {
  /** New manual deliveries queued by this request. */
  recovered: number;
  /** More FAILED deliveries since that time remain: the same request recovers the next ones. */
  hasMore: boolean;
}

export interface DeliveryRecoveryDependencies {
  store: Pick<DeliveryStore, 'create' | 'get' | 'markScheduled' | 'failedSince' | 'markRecovered'>;
  subscriptions: Pick<SubscriptionLookup, 'find'>;
  queue: AttemptQueue;
  now?: () => Date;
}

/** A recovery delivery's attempt: queued by this request, queued already, or left to the request that is writing it. */
type RecoveryState = 'to queue' | 'queued' | 'left to its writer';

const subscriptionNotFound = () => new NotFoundError('The event subscription does not exist.');

/**
 * Each FAILED delivery is recovered once: its recovery delivery has an id seeded by it, written
 * conditionally, and the FAILED delivery then records it (`recoveredBy`), which keeps it out of later
 * recovers. A request that stops half-way leaves nothing sent twice and nothing lost: the next one
 * finds the recovery delivery written, queues its attempt if nobody did, and records it.
 */
export class FailedDeliveryRecovery {
  private readonly now: () => Date;

  constructor(private readonly dependencies: DeliveryRecoveryDependencies) {
    this.now = dependencies.now ?? (() => new Date());
  }

  async recoverFailedDeliveries(workspaceId: string, subscriptionId: string, since: string): Promise<RecoveredDeliveries> {
    const { store, subscriptions, queue } = this.dependencies;
    if (!isIdentifier('sub', subscriptionId)) throw subscriptionNotFound();
    const subscription = await subscriptions.find(workspaceId, subscriptionId);
    if (!subscription || subscription.workspaceId !== workspaceId) throw subscriptionNotFound();
    if (subscription.status !== 'active') throw new ConflictError('Failed deliveries can be recovered only while the subscription is active.');

    const now = this.now();
    const failed = await store.failedSince(subscriptionId, { since: new Date(since).toISOString(), limit: recoveriesPerRequest, now });
    const ofWorkspace = failed.deliveries.filter((delivery) => delivery.workspaceId === workspaceId);
    const limit = pLimit(concurrentWrites);
    const recoveries = await Promise.all(ofWorkspace.map((delivery) => limit(() => this.writeRecovery(delivery, now))));
    const toQueue = recoveries.filter(({ state }) => state === 'to queue').map(({ delivery }) => delivery);
    // Queued before they are marked: a crash in between leaves them unmarked, and the next recover
    // finds them queued (scheduledAttempt) and only marks them. One left to its writer stays unmarked,
    // so that a later recover still finds it if that writer stopped.
    await queue.sendAll(toQueue.map((delivery) => ({ message: { kind: 'attempt', deliveryId: delivery.id, eventId: delivery.eventId, attempt: 1 }, delaySeconds: 0 })));
    await Promise.all(toQueue.map((delivery) => limit(() => store.markScheduled(delivery.eventId, delivery.id, 1))));
    const sent = recoveries.filter(({ state }) => state !== 'left to its writer');
    await Promise.all(sent.map(({ recovers, delivery }) => limit(() => store.markRecovered(recovers, delivery.id))));
    return { recovered: toQueue.length, hasMore: failed.hasMore };
  }

  /** The recovery delivery of `failed`, written now or found written, and who queues its attempt. */
  private async writeRecovery(failed: DeliveryRecord, now: Date): Promise<{ recovers: DeliveryRecord; delivery: DeliveryRecord; state: RecoveryState }> {
    const { store } = this.dependencies;
    const recovery = newDeliveryRecord(failed, { id: recoveryDeliveryId(failed), trigger: 'manual', maxAttempts: manualMaxAttempts, now, delaySeconds: 0 });
    if (await store.create(recovery)) return { recovers: failed, delivery: recovery, state: 'to queue' };
    const written = (await store.get(recovery.eventId, recovery.id)) ?? recovery;
    const neverQueued = written.scheduledAttempt === undefined && written.attemptCount === 0 && written.status === 'PENDING';
    if (!neverQueued) return { recovers: failed, delivery: written, state: 'queued' };
    const writerStopped = now.getTime() - Date.parse(written.createdAt) > recoveryWriterLifetimeMs;
    return { recovers: failed, delivery: written, state: writerStopped ? 'to queue' : 'left to its writer' };
  }
}
