import { isIdentifier } from '../infrastructure/identifiers.ts';
import { NotFoundError } from '../platform/errors.ts';
import { pageOf, type Page, type PageRequest } from '../platform/pagination.ts';
import type { EventEnvelope } from '../events/event-envelope.ts';
import { deliveryExpired, deliveryView, pendingAttempt, summarizeDeliveries, type AttemptRecord, type DeliveryRecord, type DeliverySummary, type DeliveryView } from './delivery-records.ts';
import type { DeliveryStore } from './delivery-store.ts';
import type { EventPayloads } from './event-payloads.ts';

/** A delivery detail holds up to the 100 most recent attempts (spec, Limits). */
export const detailAttemptLimit = 100;

export interface DeliveryDetail extends DeliveryView {
  payload: EventEnvelope;
  /** The most recent attempts, oldest first. */
  attempts: AttemptRecord[];
  attemptsOmitted: boolean;
}

/**
 * What the API reads of deliveries: one delivery with its attempts, the deliveries of an event, and the
 * delivery summary of each listed event. Anything outside the caller's workspace does not exist.
 */
export class DeliveryHistory {
  private readonly now: () => Date;

  constructor(
    private readonly store: DeliveryStore,
    private readonly events: EventPayloads,
    now?: () => Date,
  ) {
    this.now = now ?? (() => new Date());
  }

  /**
   * 404 once the event expired, as `GET /events/{id}` answers: the delivery's own retention (its
   * event's) is checked before anything else is read, so the answer does not depend on whether the
   * purge (locally) or TTL (deployed) has removed the event, the delivery or its attempts yet.
   */
  async getDelivery(workspaceId: string, eventId: string, deliveryId: string): Promise<DeliveryDetail> {
    if (!isIdentifier('evt', eventId) || !isIdentifier('dlv', deliveryId)) throw new NotFoundError('The delivery does not exist.');
    const delivery = await this.store.get(eventId, deliveryId);
    if (!delivery || delivery.workspaceId !== workspaceId || deliveryExpired(delivery, this.now())) throw new NotFoundError('The delivery does not exist.');
    const [event, recent] = await Promise.all([this.events.load(workspaceId, eventId), this.store.recentAttempts(delivery, detailAttemptLimit)]);
    if (!event || event.workspaceId !== workspaceId) throw new NotFoundError('The delivery does not exist.');
    return { ...deliveryView(delivery), payload: event.envelope, attempts: withFoldedPendingAttempt(delivery, recent.attempts), attemptsOmitted: recent.omitted };
  }

  /** Automatic deliveries and manual resends of an event, oldest first, optionally of one subscription. */
  async listEventDeliveries(workspaceId: string, eventId: string, filter: { subscriptionId?: string }, page: PageRequest): Promise<Page<DeliveryView>> {
    if (!isIdentifier('evt', eventId)) throw new NotFoundError('The event does not exist.');
    const event = await this.events.load(workspaceId, eventId);
    if (!event || event.workspaceId !== workspaceId) throw new NotFoundError('The event does not exist.');
    // An event has one delivery per subscription (at most 25) plus its resends: one Query reads them
    // all, so the total is exact.
    const now = this.now();
    const deliveries = (await this.store.listOfEvent(eventId)).filter(
      (delivery) =>
        delivery.workspaceId === workspaceId &&
        !deliveryExpired(delivery, now) &&
        (filter.subscriptionId === undefined || delivery.subscriptionId === filter.subscriptionId),
    );
    const start = page.page * page.size;
    return pageOf(deliveries.slice(start, start + page.size).map(deliveryView), page, deliveries.length);
  }

  /** `deliverySummary` of each event, scoped to one subscription when one is given. */
  async summaries(eventIds: string[], filter: { subscriptionId?: string } = {}): Promise<Map<string, DeliverySummary>> {
    const entries = await Promise.all(
      eventIds.map(async (eventId) => {
        const deliveries = (await this.store.listOfEvent(eventId)).filter(
          (delivery) => filter.subscriptionId === undefined || delivery.subscriptionId === filter.subscriptionId,
        );
        return [eventId, summarizeDeliveries(deliveries)] as const;
      }),
    );
    return new Map(entries);
  }
}

/**
 * Attempt 1 in flight from the fan-out has its pending record on the delivery itself
 * (`firstAttemptStartedAt`): shown as the pending attempt it is, as a separate record would be.
 */
function withFoldedPendingAttempt(delivery: DeliveryRecord, attempts: AttemptRecord[]): AttemptRecord[] {
  if (delivery.firstAttemptStartedAt === undefined || attempts.some((attempt) => attempt.number === 1)) return attempts;
  return [pendingAttempt(1, delivery.firstAttemptStartedAt), ...attempts];
}
