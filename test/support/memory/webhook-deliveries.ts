import type { AttemptMessage, AttemptQueue, DeliverySubscription, SendWebhook, SignWebhook, SubscriptionLookup } from '../../../src/webhooks/delivery-attempts.ts';
import { deliveryExpired, type AttemptRecord, type AttemptResult, type DeliveryRecord } from '../../../src/webhooks/delivery-records.ts';
import type { AttemptSettlement, DeliveryStore, FanOut, FannedOutDelivery, HeldDelivery } from '../../../src/webhooks/delivery-store.ts';
import type { EventPayloads, RecordedEvent } from '../../../src/webhooks/event-payloads.ts';
import type { WebhookRequest } from '../../../src/webhooks/webhook-sender.ts';

// In-test implementations of the delivery engine's ports, with the same conditions as the DynamoDB
// store (test/integration/webhook-delivery-engine.test.ts runs the real one).

const copy = <T>(value: T): T => structuredClone(value);

export class InMemoryDeliveryStore implements DeliveryStore {
  readonly deliveries = new Map<string, DeliveryRecord>();
  readonly attempts = new Map<string, AttemptRecord[]>();
  /** Set to make the next settleAttempt throw, as a consumer dying after the POST would. */
  failNextSettle = false;
  /**
   * Every write sent for a delivery, in order, named by the store method that sent it: each is one
   * item write of the DynamoDB store (a conditional one is sent, and paid for, whether or not it holds;
   * `createAll` and `settleOwnAttempts` write one item per delivery, batched). The claim on the event
   * that the DynamoDB fan-out adds is not a delivery's write and is not modelled here.
   */
  readonly writes: { deliveryId: string; write: string }[] = [];

  writesOf(deliveryId: string): string[] {
    return this.writes.filter((write) => write.deliveryId === deliveryId).map(({ write }) => write);
  }

  private wrote(deliveryId: string, write: string): void {
    this.writes.push({ deliveryId, write });
  }

  async create(record: DeliveryRecord): Promise<boolean> {
    this.wrote(record.id, 'create');
    if (this.deliveries.has(record.id)) return false;
    this.deliveries.set(record.id, copy(record));
    return true;
  }

  /** How many times the fan-out's own attempts were settled together, and how many each time. */
  readonly ownSettleBatches: number[] = [];

  /** Events fanned out at least once (the DynamoDB store's claim item), with the deliveries their first fan-out held in flight. */
  readonly inFlight = new Map<string, Map<string, DeliveryRecord>>();

  async createAll(records: DeliveryRecord[]): Promise<FanOut> {
    const [first] = records;
    const sendingNow = records.every((record) => record.firstAttemptStartedAt !== undefined);
    if (first && sendingNow && !this.inFlight.has(first.eventId)) {
      // The event's first fan-out: nothing written before the POSTs; each delivery's write is its settle.
      const unwritten = new Map(records.map((record) => [record.id, copy(record)]));
      this.inFlight.set(first.eventId, new Map(unwritten));
      return {
        deliveries: records.map((record) => ({ current: copy(record), createdNow: true })),
        settleOwnAttempts: async (settlements) => {
          this.ownSettleBatches.push(settlements.length);
          const settled: boolean[] = [];
          for (const { delivery, completed, settlement } of settlements) {
            // A settle that fails leaves the delivery unwritten, as the DynamoDB store's does.
            if (this.failNextSettle) {
              this.failNextSettle = false;
              throw new Error('The consumer stopped before recording the outcome.');
            }
            const record = unwritten.get(delivery.id);
            if (record) {
              unwritten.delete(delivery.id);
              this.deliveries.set(record.id, copy(record));
            }
            settled.push(await this.settleAttempt(delivery, completed, settlement));
          }
          return settled;
        },
        writeCreation: async (delivery) => {
          const record = unwritten.get(delivery.id);
          if (!record) return;
          unwritten.delete(delivery.id);
          this.wrote(record.id, 'create');
          this.deliveries.set(record.id, copy(record));
        },
        handBack: async () => undefined,
      };
    }
    // A later fan-out creates what an earlier one left in flight, with the event's other deliveries.
    const known = new Set(records.map((record) => record.id));
    const left = first ? [...(this.inFlight.get(first.eventId)?.values() ?? [])].filter((record) => !known.has(record.id)) : [];
    if (first && !this.inFlight.has(first.eventId)) this.inFlight.set(first.eventId, new Map());
    const created: FannedOutDelivery[] = [];
    for (const record of [...records, ...left.map((record) => ({ ...record, firstAttemptStartedAt: first?.firstAttemptStartedAt }))]) {
      if (record.firstAttemptStartedAt === undefined) delete record.firstAttemptStartedAt;
      const stored = this.deliveries.get(record.id);
      if (stored) created.push({ current: copy(stored), createdNow: false });
      else {
        this.wrote(record.id, 'create');
        this.deliveries.set(record.id, copy(record));
        created.push({ current: copy(record), createdNow: true });
      }
    }
    return {
      deliveries: created,
      settleOwnAttempts: async (settlements) => {
        this.ownSettleBatches.push(settlements.length);
        const settled: boolean[] = [];
        // One at a time, so failNextSettle fails exactly one of them, as in the DynamoDB store's fallback.
        for (const { delivery, completed, settlement } of settlements) settled.push(await this.settleAttempt(delivery, completed, settlement));
        return settled;
      },
      writeCreation: async () => undefined,
      handBack: async () => undefined,
    };
  }

  async get(eventId: string, deliveryId: string): Promise<DeliveryRecord | undefined> {
    const record = this.deliveries.get(deliveryId) ?? this.inFlight.get(eventId)?.get(deliveryId);
    return record && record.eventId === eventId ? copy(record) : undefined;
  }

  async listOfEvent(eventId: string): Promise<DeliveryRecord[]> {
    const stored = [...this.deliveries.values()].filter((record) => record.eventId === eventId);
    const storedIds = new Set(stored.map((record) => record.id));
    const inFlight = [...(this.inFlight.get(eventId)?.values() ?? [])].filter((record) => !storedIds.has(record.id));
    return [...stored, ...inFlight].map(copy);
  }

  async markScheduled(_eventId: string, deliveryId: string, attempt: number): Promise<void> {
    this.wrote(deliveryId, 'markScheduled');
    const record = this.deliveries.get(deliveryId);
    if (record && (record.scheduledAttempt ?? 0) < attempt) record.scheduledAttempt = attempt;
  }

  async hold(delivery: DeliveryRecord, attempt: number, at: string): Promise<boolean> {
    this.wrote(delivery.id, 'hold');
    const record = this.nextOf(delivery.id, attempt);
    if (!record) return false;
    Object.assign(record, { heldAttempt: attempt, updatedAt: at });
    delete record.firstAttemptStartedAt;
    return true;
  }

  async release(delivery: Pick<DeliveryRecord, 'id'>, attempt: number): Promise<boolean> {
    this.wrote(delivery.id, 'release');
    const record = this.deliveries.get(delivery.id);
    if (record?.heldAttempt !== attempt) return false;
    delete record.heldAttempt;
    return true;
  }

  async listHeld(subscriptionId: string): Promise<HeldDelivery[]> {
    return [...this.deliveries.values()]
      .filter((record) => record.subscriptionId === subscriptionId && record.heldAttempt !== undefined)
      .map((record) => ({ eventId: record.eventId, deliveryId: record.id, heldAttempt: record.heldAttempt! }));
  }

  async settleAttempt(delivery: DeliveryRecord, completed: AttemptRecord, settlement: AttemptSettlement): Promise<boolean> {
    if (this.failNextSettle) {
      this.failNextSettle = false;
      throw new Error('The consumer stopped before recording the outcome.');
    }
    this.wrote(delivery.id, 'settleAttempt');
    const record = this.nextOf(delivery.id, completed.number);
    if (!record) return false;
    this.attemptsOf(delivery.id).push(copy(completed));
    Object.assign(record, settlement, { attemptCount: completed.number });
    delete record.heldAttempt;
    delete record.firstAttemptStartedAt;
    return true;
  }

  async endWithoutAttempt(delivery: DeliveryRecord, attempt: number, at: string): Promise<boolean> {
    this.wrote(delivery.id, 'endWithoutAttempt');
    const record = this.nextOf(delivery.id, attempt);
    if (!record) return false;
    Object.assign(record, { status: 'FAILED', nextAttemptAt: null, updatedAt: at });
    delete record.heldAttempt;
    delete record.firstAttemptStartedAt;
    return true;
  }

  async recentAttempts(delivery: Pick<DeliveryRecord, 'id'>, limit: number): Promise<{ attempts: AttemptRecord[]; omitted: boolean }> {
    const attempts = [...this.attemptsOf(delivery.id)].sort((a, b) => a.number - b.number);
    return { attempts: attempts.slice(-limit).map(copy), omitted: attempts.length > limit };
  }

  /** Failed delivery id → the delivery that recovered it. */
  readonly recoveredBy = new Map<string, string>();

  async failedSince(subscriptionId: string, query: { since: string; limit: number; now: Date }): Promise<{ deliveries: DeliveryRecord[]; hasMore: boolean }> {
    const failed = [...this.deliveries.values()]
      .filter(
        (record) =>
          record.subscriptionId === subscriptionId &&
          record.status === 'FAILED' &&
          record.updatedAt >= query.since &&
          !this.recoveredBy.has(record.id) &&
          !deliveryExpired(record, query.now),
      )
      .sort((a, b) => `${a.occurredAt}#${a.eventId}#${a.id}`.localeCompare(`${b.occurredAt}#${b.eventId}#${b.id}`));
    return { deliveries: failed.slice(0, query.limit).map(copy), hasMore: failed.length > query.limit };
  }

  async markRecovered(failed: Pick<DeliveryRecord, 'id'>, recoveryId: string): Promise<boolean> {
    this.wrote(failed.id, 'markRecovered');
    if (!this.deliveries.has(failed.id) || this.recoveredBy.has(failed.id)) return false;
    this.recoveredBy.set(failed.id, recoveryId);
    return true;
  }

  attemptsOf(deliveryId: string): AttemptRecord[] {
    if (!this.attempts.has(deliveryId)) this.attempts.set(deliveryId, []);
    return this.attempts.get(deliveryId)!;
  }

  private nextOf(deliveryId: string, attempt: number): DeliveryRecord | undefined {
    const record = this.deliveries.get(deliveryId);
    return record && record.status === 'PENDING' && record.attemptCount === attempt - 1 ? record : undefined;
  }
}

/** Messages with their delays, taken off in order by the test as a consumer would. */
export class RecordingAttemptQueue implements AttemptQueue {
  readonly sent: { message: AttemptMessage; delaySeconds: number }[] = [];
  private next = 0;
  /** Set to make the next send throw, as a consumer stopping just before it queues a message would. */
  failNextSend = false;

  async send(message: AttemptMessage, delaySeconds: number): Promise<void> {
    if (this.failNextSend) {
      this.failNextSend = false;
      throw new Error('stopped before queueing the next attempt');
    }
    this.sent.push({ message: copy(message), delaySeconds });
  }

  async sendAll(messages: { message: AttemptMessage; delaySeconds: number }[]): Promise<void> {
    for (const { message, delaySeconds } of messages) await this.send(message, delaySeconds);
  }

  /** The messages sent since the last call. */
  take(): { message: AttemptMessage; delaySeconds: number }[] {
    const taken = this.sent.slice(this.next);
    this.next = this.sent.length;
    return taken;
  }
}

export class InMemorySubscriptions implements SubscriptionLookup {
  readonly subscriptions = new Map<string, DeliverySubscription & { secret: string }>();

  add(subscription: DeliverySubscription, secret = 'whsec_dGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQtdGVzdC1zZWNyZXQ='): void {
    this.subscriptions.set(subscription.id, { ...subscription, secret });
  }

  async find(workspaceId: string, subscriptionId: string): Promise<DeliverySubscription | undefined> {
    const found = this.subscriptions.get(subscriptionId);
    if (!found || found.workspaceId !== workspaceId) return undefined;
    const { secret: _secret, ...subscription } = found;
    return copy(subscription);
  }

  async findWithSecret(workspaceId: string, subscriptionId: string): Promise<{ subscription: DeliverySubscription; secret: string } | undefined> {
    const found = this.subscriptions.get(subscriptionId);
    if (!found || found.workspaceId !== workspaceId) return undefined;
    const { secret, ...subscription } = found;
    return { subscription: copy(subscription), secret };
  }

  async ofWorkspace(workspaceId: string): Promise<DeliverySubscription[]> {
    const found = [...this.subscriptions.values()].filter((subscription) => subscription.workspaceId === workspaceId);
    return found.map(({ secret: _secret, ...subscription }) => copy(subscription));
  }
}

export class InMemoryEvents implements EventPayloads {
  readonly events = new Map<string, RecordedEvent>();

  add(event: RecordedEvent): void {
    this.events.set(event.envelope.eventId, copy(event));
  }

  async load(workspaceId: string, eventId: string): Promise<RecordedEvent | undefined> {
    const event = this.events.get(eventId);
    return event?.workspaceId === workspaceId ? copy(event) : undefined;
  }
}

/** Stands in for webhook-signature.ts (another module's): a header that names the secret and time. */
export const fakeSign: SignWebhook = ({ secret, eventId, timestamp }) => ({
  'X-Paperflow-Signature': `t=${timestamp},v1=signed-with-${secret.length}-for-${eventId}`,
});

/** A receiver that answers each POST with the next status of its script (then the last one again). */
export function scriptedReceiver(statuses: number[]) {
  const requests: (WebhookRequest & { signature: string })[] = [];
  const send: SendWebhook = async (request, sign) => {
    const status = statuses[Math.min(requests.length, statuses.length - 1)]!;
    requests.push({ ...request, signature: sign(request.body, request.eventId, 1_772_359_200)['X-Paperflow-Signature']! });
    const succeeded = status >= 200 && status < 300;
    const result: AttemptResult = {
      startedAt: new Date().toISOString(),
      durationMs: 5,
      requestHeaders: { 'X-Paperflow-Attempt': String(request.attempt), 'X-Paperflow-Signature': '[redacted]' },
      responseStatus: status,
      responseBody: `answer ${requests.length}`,
      error: succeeded ? null : { kind: 'http status', message: `The endpoint answered HTTP ${status}.` },
      outcome: succeeded ? 'succeeded' : 'failed',
    };
    return result;
  };
  return { send, requests };
}
