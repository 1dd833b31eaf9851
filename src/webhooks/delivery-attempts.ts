import { isIdentifier } from '../infrastructure/identifiers.ts';
import { metrics } from '../infrastructure/metrics.ts';
import { ConflictError, NotFoundError } from '../platform/errors.ts';
import {
  automaticDeliveryId,
  deliveryExpired,
  deliveryView,
  manualDeliveryId,
  newDeliveryRecord,
  type AttemptRecord,
  type AttemptResult,
  type DeliveryRecord,
  type DeliveryStatus,
  type DeliveryTrigger,
  type DeliveryView,
} from './delivery-records.ts';
import type { AttemptSettlement, DeliveryStore, OwnAttemptSettlement } from './delivery-store.ts';
import { envelopeBody, type EventPayloads, type RecordedEvent } from './event-payloads.ts';
import { automaticMaxAttempts, manualMaxAttempts, queuedDelay, remainingDelay, type RetrySchedule } from './retry-schedule.ts';
import type { SignRequest, WebhookRequest } from './webhook-sender.ts';

/** What delivery needs to know of a subscription (the subscriptions module owns the record). */
export interface DeliverySubscription {
  id: string;
  workspaceId: string;
  status: 'active' | 'paused';
  endpointUrl: string;
  eventTypes: string[];
  filters?: { workflowId?: string };
}

/**
 * Port to the subscriptions module, always within one workspace: another workspace's subscription
 * answers as a missing one. Undefined means the subscription was deleted.
 */
export interface SubscriptionLookup {
  find(workspaceId: string, subscriptionId: string): Promise<DeliverySubscription | undefined>;
  /** The subscription with its decrypted signing secrets, read together; undefined when it is gone. */
  findWithSecret(workspaceId: string, subscriptionId: string): Promise<({ subscription: DeliverySubscription } & SigningSecrets) | undefined>;
  /** Every subscription of the workspace (at most 25), whatever its status: the fan-out's candidates. */
  ofWorkspace(workspaceId: string): Promise<DeliverySubscription[]>;
}

/** What signs a subscription's deliveries: its secret, and during a rotation's overlap the one it replaced. */
export interface SigningSecrets {
  secret: string;
  /** Signs too, for requests signed before `expiresAt` (ISO 8601). */
  previousSecret?: { secret: string; expiresAt: string };
}

/** `{kind: "attempt"}` on the delivery queue (docs/webhooks.md, Delivery protocol). */
export interface AttemptMessage {
  kind: 'attempt';
  deliveryId: string;
  eventId: string;
  attempt: number;
  /** Set on a wait longer than one SQS delay: received earlier, the message goes back on the queue. */
  notBefore?: string;
}

/** Port to the delivery queue: messages with a delay of 0 to 900 seconds each. */
export interface AttemptQueue {
  send(message: AttemptMessage, delaySeconds: number): Promise<void>;
  /** Several messages in as few calls as the queue allows (SQS: ten per SendMessageBatch); throws unless all were sent. */
  sendAll(messages: { message: AttemptMessage; delaySeconds: number }[]): Promise<void>;
}

/** Port to the pure signature module (`signWebhook` of webhook-signature.ts). */
export type SignWebhook = (input: { secret: string; previousSecret?: string; eventId: string; body: string; timestamp: number }) => Record<string, string>;

/** One POST of a delivery (WebhookSender.send). */
export type SendWebhook = (request: WebhookRequest, sign: SignRequest) => Promise<AttemptResult>;

export interface DeliveryAttemptsDependencies {
  store: DeliveryStore;
  subscriptions: SubscriptionLookup;
  events: EventPayloads;
  queue: AttemptQueue;
  sign: SignWebhook;
  send: SendWebhook;
  schedule: RetrySchedule;
  now?: () => Date;
}

/** What became of one attempt message, for the consumer's log and the tests. */
export type AttemptMessageResult =
  | { action: 'sent'; outcome: 'succeeded' | 'failed'; deliveryStatus: DeliveryStatus }
  /** Already settled, superseded, or not the delivery's next attempt: acknowledged, nothing sent. */
  | { action: 'duplicate' }
  /** Received before its `notBefore`: queued again for the rest of the wait. */
  | { action: 'deferred'; delaySeconds: number }
  /** The subscription is paused: the attempt waits, unspent, until it is resumed. */
  | { action: 'held' }
  /** The subscription is gone, or the event expired: the delivery ended FAILED without an attempt. */
  | { action: 'ended' }
  /** The attempt was settled but its consumer stopped before queueing the next one: queued now. */
  | { action: 'rescheduled'; attempt: number };

/**
 * Whether an event goes to a subscription: an active subscription of the event's workspace that lists
 * the event's type; workflow events also honour `filters.workflowId` (extraction events are selected
 * by type alone).
 */
export function subscriptionMatches(subscription: DeliverySubscription, event: RecordedEvent): boolean {
  if (subscription.status !== 'active' || subscription.workspaceId !== event.workspaceId) return false;
  if (!subscription.eventTypes.includes(event.envelope.eventType)) return false;
  const workflowId = subscription.filters?.workflowId;
  if (workflowId === undefined || !event.envelope.eventType.startsWith('workflow.')) return true;
  return event.envelope.data.workflowId === workflowId;
}

/**
 * The delivery engine: the fan-out's writes, one attempt per queue message, the schedule of the next,
 * held attempts of paused subscriptions, and manual resends (docs/webhooks.md, Delivery protocol).
 *
 * Without transactions every step is a conditional write that a repeated message finds done, in an
 * order where a crash between two writes leaves something the next delivery of the same message (or
 * the outbox's next hand-off) completes: see docs/webhooks.md, "Write order and crashes".
 */
/**
 * The delivery settled an attempt that failed (`attemptCount`) but its next attempt was never marked
 * queued: whoever settled it stopped before queueing it, and nothing else will.
 */
function nextAttemptLost(delivery: DeliveryRecord): boolean {
  return (
    delivery.status === 'PENDING' &&
    delivery.attemptCount >= 1 &&
    delivery.heldAttempt === undefined &&
    (delivery.scheduledAttempt ?? 0) <= delivery.attemptCount
  );
}

export class DeliveryAttempts {
  private readonly now: () => Date;

  constructor(private readonly dependencies: DeliveryAttemptsDependencies) {
    this.now = dependencies.now ?? (() => new Date());
  }

  /**
   * Creates one automatic delivery per matching subscription and queues the first attempts together
   * (SendMessageBatch). A second fan-out of the same event (the outbox hands off at least once) finds
   * the deliveries (their ids are deterministic) and queues attempt 1 again only for those still
   * waiting for it: a crash may have kept it from being queued, and a copy that was queued is a
   * duplicate the attempt's own records absorb (docs/webhooks.md, Write order and crashes).
   *
   * `sendFirstAttemptsNow` (the delivery consumer's fan-out): the deliveries this call created make
   * their first attempt here, side by side (at most one per subscription, 25), instead of through a
   * queue message each, exactly as a received attempt message would make it. If one of them fails,
   * this rejects, so the hand-off comes back and its second fan-out queues attempt 1 for the
   * deliveries still at attemptCount 0 (docs/webhooks.md, First attempt in the fan-out).
   */
  async createAutomaticDeliveries(
    event: RecordedEvent,
    subscriptions: DeliverySubscription[],
    options: { sendFirstAttemptsNow?: boolean } = {},
  ): Promise<DeliveryView[]> {
    const { store, schedule } = this.dependencies;
    const now = this.now();
    const delaySeconds = schedule.delayBeforeAttempt(1);
    const sendingNow = options.sendFirstAttemptsNow === true && delaySeconds === 0;
    const records = subscriptions
      .filter((candidate) => subscriptionMatches(candidate, event))
      .map((subscription) => {
        const record = this.newDelivery(event, subscription.id, {
          id: automaticDeliveryId(event.envelope.eventId, subscription.id, event.envelope.occurredAt),
          trigger: 'automatic',
          maxAttempts: automaticMaxAttempts,
          now,
          delaySeconds,
        });
        // Sent from here, attempt 1 is in flight from now: the store keeps that on the event's claim
        // (its first fan-out writes each delivery once, by the settle) or on the delivery it writes.
        if (sendingNow) record.firstAttemptStartedAt = now.toISOString();
        return record;
      });
    // The event's deliveries (at most 25) are written together, those already stored kept as they are.
    const fanOut = await store.createAll(records);
    const created = fanOut.deliveries.map(({ current, createdNow }) => ({
      current,
      createdNow,
      firstAttemptDue: createdNow || (current.status === 'PENDING' && current.attemptCount === 0 && current.heldAttempt === undefined),
    }));
    // Only a delivery this call created is surely not being attempted elsewhere; one found existing
    // may be in another fan-out's hands, so its attempt 1 goes through the queue, where copies meet.
    const sentNow = sendingNow ? created.filter(({ createdNow }) => createdNow) : [];
    const { delaySeconds: firstHop, notBefore } = queuedDelay(delaySeconds, now);
    await this.dependencies.queue.sendAll(
      created
        .filter((delivery) => delivery.firstAttemptDue && !sentNow.includes(delivery))
        .map(({ current }) => ({
          message: { kind: 'attempt', deliveryId: current.id, eventId: current.eventId, attempt: 1, ...(notBefore ? { notBefore } : {}) },
          delaySeconds: firstHop,
        })),
    );
    // A fan-out that made a failing attempt 1 itself and stopped after settling it, before queueing
    // attempt 2, left no message that would ever queue it: its hand-off came back, and this second
    // fan-out queues it (a copy that was queued after all is a duplicate the attempt's records absorb).
    for (const { current, createdNow } of created) {
      if (!createdNow && nextAttemptLost(current)) await this.requeueLostAttempt(current);
    }
    // Every attempt runs to its end before a failure of one is reported: none is cut off half-way.
    // Their outcomes are recorded together, as many as ended while the previous write was under way.
    const ownSettlements = new SettlementBatches(fanOut.settleOwnAttempts);
    // One event, one body: serialised once for all its deliveries, not once per subscription.
    const body = sentNow.length > 0 ? envelopeBody(event.envelope) : '';
    const attempts = await Promise.allSettled(
      sentNow.map(({ current }) => this.makeAttempt(current, 1, { event, body, settle: ownSettlements.settle, writeCreation: fanOut.writeCreation })),
    );
    const failed = attempts.find((attempt) => attempt.status === 'rejected');
    if (failed) {
      // Every write of this fan-out has ended: the hand-off's next receipt may claim the event at once.
      await fanOut.handBack();
      throw failed.reason;
    }
    return created.map(({ current }) => deliveryView(current));
  }

  /** `POST …/resend`: a new manual delivery with one attempt, only while the subscription is active. */
  async resendDelivery(workspaceId: string, eventId: string, deliveryId: string): Promise<DeliveryView> {
    const { store, subscriptions, events } = this.dependencies;
    if (!isIdentifier('evt', eventId) || !isIdentifier('dlv', deliveryId)) throw new NotFoundError('The delivery does not exist.');
    const now = this.now();
    const original = await store.get(eventId, deliveryId);
    // An expired event's delivery does not exist any more (404, as its detail answers), whatever its subscription.
    if (!original || original.workspaceId !== workspaceId || deliveryExpired(original, now)) throw new NotFoundError('The delivery does not exist.');
    const [subscription, event] = await Promise.all([subscriptions.find(workspaceId, original.subscriptionId), events.load(workspaceId, eventId)]);
    if (!event) throw new NotFoundError('The delivery does not exist.');
    if (!subscription || subscription.workspaceId !== workspaceId || subscription.status !== 'active') {
      throw new ConflictError('The delivery can be resent only while its subscription is active.');
    }
    const record = this.newDelivery(event, subscription.id, { id: manualDeliveryId(), trigger: 'manual', maxAttempts: manualMaxAttempts, now, delaySeconds: 0 });
    await store.create(record);
    await this.queueAttempt(record, 1, 0, now);
    return deliveryView(record);
  }

  /** After a resume: queues again every attempt that fell due while the subscription was paused. */
  async releaseHeldDeliveries(subscriptionId: string): Promise<number> {
    const { store, queue } = this.dependencies;
    let released = 0;
    for (const held of await store.listHeld(subscriptionId)) {
      // Queued before the mark is cleared: a crash in between leaves it held, and a later release
      // queues it again (the attempt then runs once; the second message finds it done).
      await queue.send({ kind: 'attempt', deliveryId: held.deliveryId, eventId: held.eventId, attempt: held.heldAttempt }, 0);
      if (await store.release({ eventId: held.eventId, id: held.deliveryId }, held.heldAttempt)) released += 1;
    }
    return released;
  }

  /** Steps 3-6 of the protocol for one `{kind: "attempt"}` message. */
  async processAttemptMessage(message: Omit<AttemptMessage, 'kind'>): Promise<AttemptMessageResult> {
    const { store } = this.dependencies;
    const { attempt } = message;
    const delivery = await store.get(message.eventId, message.deliveryId);
    if (!delivery || delivery.status !== 'PENDING') return { action: 'duplicate' };
    if (attempt === delivery.attemptCount && nextAttemptLost(delivery)) {
      return this.requeueLostAttempt(delivery);
    }
    if (attempt !== delivery.attemptCount + 1) return { action: 'duplicate' };

    const hop = remainingDelay(message.notBefore, this.now());
    if (hop) {
      await this.dependencies.queue.send({ kind: 'attempt', deliveryId: delivery.id, eventId: delivery.eventId, attempt, notBefore: hop.notBefore }, hop.delaySeconds);
      return { action: 'deferred', delaySeconds: hop.delaySeconds };
    }

    return this.makeAttempt(delivery, attempt);
  }

  /**
   * Attempt `attempt` of `delivery`, its next one: held while the subscription is paused, the delivery
   * ended when the subscription is gone, otherwise the POST, then its outcome recorded on the delivery
   * together with the settle (steps 4-6 of the protocol). `known.event` is the event when the caller
   * has it already, `known.body` its envelope as sent (`envelopeBody`).
   */
  private async makeAttempt(
    delivery: DeliveryRecord,
    attempt: number,
    known: { event?: RecordedEvent; body?: string; settle?: SettleAttempt; writeCreation?: (delivery: DeliveryRecord) => Promise<void> } = {},
  ): Promise<AttemptMessageResult> {
    const { store, subscriptions, events } = this.dependencies;
    const found = await subscriptions.findWithSecret(delivery.workspaceId, delivery.subscriptionId);
    const { subscription, secret, previousSecret } = found?.subscription.workspaceId === delivery.workspaceId ? found : { subscription: undefined, secret: undefined };
    // A fan-out's delivery not written yet (it is written once, by the settle of its attempt 1) is
    // written as created first: a hold and an end are conditional writes on the stored delivery.
    if (!subscription || secret === undefined) {
      await known.writeCreation?.(delivery);
      await store.endWithoutAttempt(delivery, attempt, this.now().toISOString());
      return { action: 'ended' };
    }
    if (subscription.status !== 'active') {
      await known.writeCreation?.(delivery);
      await store.hold(delivery, attempt, this.now().toISOString());
      return { action: 'held' };
    }

    const event = known.event ?? (await events.load(delivery.workspaceId, delivery.eventId));
    if (!event) {
      // Past its retention the event is gone for good (a delivery held that long, say): the delivery ends
      // without an attempt. Otherwise the read came too early, and the message comes back.
      if (deliveryExpired(delivery, this.now())) {
        await store.endWithoutAttempt(delivery, attempt, this.now().toISOString());
        return { action: 'ended' };
      }
      throw new Error(`Event ${delivery.eventId} of delivery ${delivery.id} is not recorded.`);
    }
    const post = () =>
      this.dependencies.send(
        {
          endpointUrl: subscription.endpointUrl,
          body: known.body ?? envelopeBody(event.envelope),
          eventId: delivery.eventId,
          eventType: delivery.eventType,
          deliveryId: delivery.id,
          attempt,
        },
        // The signed time decides whether the rotated-out secret still signs: never past its overlap.
        (body, eventId, timestamp) =>
          this.dependencies.sign({ secret, previousSecret: signsAt(previousSecret, timestamp), eventId, body, timestamp }),
      );
    // No record before the POST: the outcome is recorded and the delivery settled by one write (a
    // conditional one, or the fan-out's batch under its claim), so a consumer that stops after the POST
    // leaves the delivery at this attempt, unrecorded, and the message's next receipt (or the
    // hand-off's) sends it again (same eventId) and records it once.
    return this.settle(delivery, { number: attempt, ...(await post()) }, known.settle);
  }

  private async settle(
    delivery: DeliveryRecord,
    completed: AttemptRecord,
    record: SettleAttempt = (...settling) => this.dependencies.store.settleAttempt(...settling),
  ): Promise<AttemptMessageResult> {
    const attempt = completed.number;
    const succeeded = completed.outcome === 'succeeded';
    const ended = succeeded || attempt >= delivery.maxAttempts;
    const status: DeliveryStatus = succeeded ? 'SUCCEEDED' : ended ? 'FAILED' : 'PENDING';
    const now = this.now();
    const nextDelaySeconds = ended ? 0 : this.dependencies.schedule.delayBeforeAttempt(attempt + 1);
    const settled = await record(delivery, completed, {
      status,
      lastAttemptAt: completed.startedAt,
      lastResponseStatus: completed.responseStatus,
      nextAttemptAt: ended ? null : new Date(now.getTime() + nextDelaySeconds * 1000).toISOString(),
      updatedAt: now.toISOString(),
    });
    // Not settled: another receipt of this message got there first and queues the next attempt itself.
    if (!settled) return { action: 'duplicate' };
    metrics.record('DeliveryAttempt', completed.durationMs ?? 0, completed.outcome);
    if (ended) metrics.record('DeliveryAttemptsUsed', attempt, status);
    if (!ended) await this.queueAttempt(delivery, attempt + 1, nextDelaySeconds, now);
    return { action: 'sent', outcome: succeeded ? 'succeeded' : 'failed', deliveryStatus: status };
  }

  /** The delivery settled `attemptCount` but the next message was never marked queued. */
  private async requeueLostAttempt(delivery: DeliveryRecord): Promise<AttemptMessageResult> {
    const now = this.now();
    const dueMs = delivery.nextAttemptAt ? Date.parse(delivery.nextAttemptAt) - now.getTime() : 0;
    const next = delivery.attemptCount + 1;
    await this.queueAttempt(delivery, next, Math.max(0, Math.ceil(dueMs / 1000)), now);
    return { action: 'rescheduled', attempt: next };
  }

  /**
   * Queues `attempt`, then marks it queued. Attempt 1 is not marked (as the fan-out does not mark the
   * attempt 1 it queues): the mark only tells a lost attempt n+1 from a duplicate once attempt n is
   * settled (`nextAttemptLost`), and a mark of 1 or none read the same there, so a resend's first
   * attempt costs two writes, its delivery's put and the settle that records its outcome.
   */
  private async queueAttempt(delivery: DeliveryRecord, attempt: number, delaySeconds: number, now: Date): Promise<void> {
    const { delaySeconds: firstHop, notBefore } = queuedDelay(delaySeconds, now);
    await this.dependencies.queue.send({ kind: 'attempt', deliveryId: delivery.id, eventId: delivery.eventId, attempt, ...(notBefore ? { notBefore } : {}) }, firstHop);
    if (attempt > 1) await this.dependencies.store.markScheduled(delivery.eventId, delivery.id, attempt);
  }

  private newDelivery(
    event: RecordedEvent,
    subscriptionId: string,
    options: { id: string; trigger: DeliveryTrigger; maxAttempts: number; now: Date; delaySeconds: number },
  ): DeliveryRecord {
    const { eventId, eventType, occurredAt } = event.envelope;
    return newDeliveryRecord({ eventId, eventType, occurredAt, subscriptionId, workspaceId: event.workspaceId }, options);
  }
}

/** The previous secret if it still signs a request signed at `timestamp` (Unix seconds). */
function signsAt(previous: SigningSecrets['previousSecret'], timestamp: number): string | undefined {
  return previous && timestamp * 1000 < Date.parse(previous.expiresAt) ? previous.secret : undefined;
}

/** Records an attempt's outcome and settles its delivery with it (DeliveryStore.settleAttempt's contract). */
type SettleAttempt = (delivery: DeliveryRecord, completed: AttemptRecord, settlement: AttemptSettlement) => Promise<boolean>;

/**
 * Gathers the settles of a fan-out's own attempts into batches: the first one that ends is written
 * at once (after the current turn of the event loop, with whatever ended in it), and those that end
 * while a write is under way go together in the next. A fan-out's POSTs mostly end close together,
 * so its 25 deliveries take a few writes instead of 25, without holding a fast outcome back for a
 * slow endpoint.
 */
class SettlementBatches {
  private waiting: { own: OwnAttemptSettlement; resolve: (settled: boolean) => void; reject: (error: unknown) => void }[] = [];
  private writing: Promise<void> | undefined;

  constructor(private readonly write: (settlements: OwnAttemptSettlement[]) => Promise<boolean[]>) {}

  readonly settle: SettleAttempt = (delivery, completed, settlement) =>
    new Promise<boolean>((resolve, reject) => {
      this.waiting.push({ own: { delivery, completed, settlement }, resolve, reject });
      this.writing ??= this.writeAll();
    });

  private async writeAll(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    while (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      try {
        const settled = await this.write(batch.map(({ own }) => own));
        batch.forEach(({ resolve }, index) => resolve(settled[index] === true));
      } catch (error) {
        for (const { reject } of batch) reject(error);
      }
    }
    this.writing = undefined;
  }
}
