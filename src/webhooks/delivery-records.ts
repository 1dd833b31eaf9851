import { eventRetentionDays } from '../events/event-envelope.ts';
import { deterministicIdentifier, newIdentifier } from '../infrastructure/identifiers.ts';

export type DeliveryTrigger = 'automatic' | 'manual';
export type DeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';

/** One automatic or manual send of an event to one subscription (docs/webhooks.md, Records). */
export interface DeliveryRecord {
  id: string;
  eventId: string;
  subscriptionId: string;
  workspaceId: string;
  eventType: string;
  /** The event's occurredAt: the delivery's place in its subscription's list (gsi1). */
  occurredAt: string;
  trigger: DeliveryTrigger;
  status: DeliveryStatus;
  attemptCount: number;
  maxAttempts: number;
  createdAt: string;
  updatedAt: string;
  lastAttemptAt: string | null;
  nextAttemptAt: string | null;
  lastResponseStatus: number | null;
  /** The attempt that fell due while the subscription was paused; set only while held (sparse gsi6). */
  heldAttempt?: number;
  /** The highest attempt whose queue message was sent: tells a lost message from a duplicate one. */
  scheduledAttempt?: number;
  /**
   * Set when the fan-out that created the delivery makes attempt 1 itself, by the delivery's own put:
   * the detail shows attempt 1 as pending while it is in flight; removed when attempt 1 is recorded,
   * is held, or the delivery ends without it.
   */
  firstAttemptStartedAt?: string;
}

/**
 * When a delivery and its attempts expire: with their event, `occurredAt` + 90 days in whole seconds
 * (the event's own `expiresAt`, and the table's TTL attribute on every delivery and attempt item).
 */
export function deliveryExpiresAt(delivery: Pick<DeliveryRecord, 'occurredAt'>): number {
  return Math.floor(Date.parse(delivery.occurredAt) / 1000) + eventRetentionDays * 24 * 3600;
}

/** Past its event's retention: the API answers as if it did not exist, as it does for the event. */
export function deliveryExpired(delivery: Pick<DeliveryRecord, 'occurredAt'>, now: Date): boolean {
  return deliveryExpiresAt(delivery) <= Math.floor(now.getTime() / 1000);
}

/** The delivery as the API shows it: the record without its bookkeeping. */
export type DeliveryView = Omit<DeliveryRecord, 'workspaceId' | 'occurredAt' | 'heldAttempt' | 'scheduledAttempt' | 'firstAttemptStartedAt'>;

export function deliveryView(record: DeliveryRecord): DeliveryView {
  return {
    id: record.id,
    eventId: record.eventId,
    subscriptionId: record.subscriptionId,
    eventType: record.eventType,
    trigger: record.trigger,
    status: record.status,
    attemptCount: record.attemptCount,
    maxAttempts: record.maxAttempts,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    lastAttemptAt: record.lastAttemptAt,
    nextAttemptAt: record.nextAttemptAt,
    lastResponseStatus: record.lastResponseStatus,
  };
}

export type AttemptErrorKind = 'timeout' | 'connection refused' | 'tls' | 'dns' | 'blocked address' | 'redirect' | 'http status';

export interface AttemptError {
  kind: AttemptErrorKind;
  message: string;
}

export type AttemptOutcome = 'pending' | 'succeeded' | 'failed';

/**
 * One HTTP attempt of a delivery, recorded once after its POST on the delivery's own item, by the
 * same write that settles the delivery. `pending` only in the detail, for attempt 1 in flight.
 */
export interface AttemptRecord {
  number: number;
  startedAt: string;
  durationMs: number | null;
  /** As sent, with signature values redacted. */
  requestHeaders: Record<string, string>;
  responseStatus: number | null;
  /** The first 4 KB of the response body. */
  responseBody: string | null;
  error: AttemptError | null;
  outcome: AttemptOutcome;
}

/** The record of an attempt begun and not yet completed: written before its POST. */
export function pendingAttempt(number: number, startedAt: string): AttemptRecord {
  return { number, startedAt, durationMs: null, requestHeaders: {}, responseStatus: null, responseBody: null, error: null, outcome: 'pending' };
}

/** What one POST produced: the attempt record's completion. */
export type AttemptResult = Omit<AttemptRecord, 'number' | 'outcome'> & { outcome: 'succeeded' | 'failed' };

export interface DeliverySummary {
  total: number;
  succeeded: number;
  failed: number;
  pending: number;
}

/**
 * Automatic deliveries have the same id however often the event is fanned out (the outbox hands off
 * at least once): seeded by event and subscription, time part the event's occurredAt.
 */
export function automaticDeliveryId(eventId: string, subscriptionId: string, occurredAt: string): string {
  return deterministicIdentifier('dlv', `${eventId}#${subscriptionId}`, Date.parse(occurredAt));
}

/** A manual resend is a new delivery every time. */
export function manualDeliveryId(): string {
  return newIdentifier('dlv');
}

/**
 * A recover sends a FAILED delivery again as one manual delivery whatever happens: its id is seeded by
 * the delivery it recovers, so a second recover of the same delivery finds it instead of adding one.
 */
export function recoveryDeliveryId(failed: Pick<DeliveryRecord, 'id' | 'createdAt'>): string {
  return deterministicIdentifier('dlv', `recovery#${failed.id}`, Date.parse(failed.createdAt));
}

/** What a new delivery takes from its event and subscription. */
export type DeliveryOrigin = Pick<DeliveryRecord, 'eventId' | 'subscriptionId' | 'workspaceId' | 'eventType' | 'occurredAt'>;

/** A new PENDING delivery whose first attempt falls due `delaySeconds` from `now`. */
export function newDeliveryRecord(
  origin: DeliveryOrigin,
  options: { id: string; trigger: DeliveryTrigger; maxAttempts: number; now: Date; delaySeconds: number },
): DeliveryRecord {
  const at = options.now.toISOString();
  return {
    id: options.id,
    eventId: origin.eventId,
    subscriptionId: origin.subscriptionId,
    workspaceId: origin.workspaceId,
    eventType: origin.eventType,
    occurredAt: origin.occurredAt,
    trigger: options.trigger,
    status: 'PENDING',
    attemptCount: 0,
    maxAttempts: options.maxAttempts,
    createdAt: at,
    updatedAt: at,
    lastAttemptAt: null,
    nextAttemptAt: new Date(options.now.getTime() + options.delaySeconds * 1000).toISOString(),
    lastResponseStatus: null,
  };
}

export function summarizeDeliveries(deliveries: Pick<DeliveryRecord, 'status'>[]): DeliverySummary {
  const summary: DeliverySummary = { total: 0, succeeded: 0, failed: 0, pending: 0 };
  for (const { status } of deliveries) {
    summary.total += 1;
    if (status === 'SUCCEEDED') summary.succeeded += 1;
    else if (status === 'FAILED') summary.failed += 1;
    else summary.pending += 1;
  }
  return summary;
}
