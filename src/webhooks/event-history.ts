import { isIdentifier } from '../infrastructure/identifiers.ts';
import { InvalidRequestError, NotFoundError } from '../platform/errors.ts';
import { pageOf, parsePageRequest, type Page, type PageRequest } from '../platform/pagination.ts';
import { eventTypes, type EventEnvelope, type EventType } from '../events/event-envelope.ts';
import type { EventLister, EventSummary } from '../events/event-lister.ts';
import type { DeliveryHistory } from './delivery-history.ts';
import type { DeliverySummary } from './delivery-records.ts';
import { envelopeBody } from './event-payloads.ts';
import type { SubscriptionStore } from './subscription-store.ts';

// `GET /events` and `GET /events/{eventId}` (docs/webhooks.md, "Events API"). The events module owns
// the event items and their listing; this module decides which events a workspace sees (the types its
// subscriptions name) and adds the delivery summaries.

export interface EventHistoryQuery extends PageRequest {
  subscriptionId?: string;
  eventType?: EventType;
  /** Normalised ISO 8601 (toISOString), inclusive bounds on occurredAt. */
  from?: string;
  to?: string;
  sort: 'asc' | 'desc';
}

/** The query parameters as the route's schema leaves them (all text but the enums). */
export interface EventHistoryParameters {
  page?: string;
  size?: string;
  subscriptionId?: string;
  eventType?: EventType;
  from?: string;
  to?: string;
  sort?: 'asc' | 'desc';
}

/** A listed event: the envelope without `data`, and the counts of its deliveries. */
export interface ListedEvent extends EventSummary {
  deliverySummary: DeliverySummary;
}

/** Defaults (page 0, size 50, newest first); `from` after `to` is 400; bounds normalised to UTC. */
export function eventHistoryQueryOf(parameters: EventHistoryParameters): EventHistoryQuery {
  const { page, size, sort = 'desc', from, to, subscriptionId, eventType } = parameters;
  const query: EventHistoryQuery = { ...parsePageRequest({ page, size }), sort };
  if (subscriptionId !== undefined) query.subscriptionId = subscriptionId;
  if (eventType !== undefined) query.eventType = eventType;
  if (from !== undefined) query.from = new Date(from).toISOString();
  if (to !== undefined) query.to = new Date(to).toISOString();
  if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
    throw new InvalidRequestError('Query parameter "from" must not be after "to".');
  }
  return query;
}

/**
 * The event types `GET /events` shows: the union of the types the workspace's subscriptions name
 * (active and paused alike: a paused subscription still subscribes), narrowed to `eventType` when
 * given. No subscription, or a narrowing to a type nobody subscribes to: none.
 */
export function listedEventTypes(subscriptions: readonly { eventTypes: readonly string[] }[], eventType?: EventType): EventType[] {
  const subscribed = new Set(subscriptions.flatMap((subscription) => subscription.eventTypes));
  return eventTypes.filter((type) => subscribed.has(type) && (eventType === undefined || type === eventType));
}

/** One delivery as its subscription's index lists it: `<occurredAt>#<evt>#<dlv>`, ascending. */
export interface DeliveredEventEntry {
  eventId: string;
  eventType: EventType;
  occurredAt: string;
}

/**
 * The page of distinct events among a subscription's deliveries. An event delivered more than once
 * to the subscription (resends) has adjacent entries in the index (its key starts with occurredAt and
 * the event id), so dropping repeats of the previous entry leaves each event once, and the total is
 * the exact number of distinct events.
 */
export function distinctEventsPage(ascendingEntries: readonly DeliveredEventEntry[], query: PageRequest & { sort: 'asc' | 'desc' }): { events: EventSummary[]; totalItems: number } {
  const distinct: EventSummary[] = [];
  for (const entry of ascendingEntries) {
    if (distinct.at(-1)?.eventId === entry.eventId) continue;
    distinct.push({ eventId: entry.eventId, eventType: entry.eventType, occurredAt: entry.occurredAt, apiVersion: 'v1' });
  }
  if (query.sort === 'desc') distinct.reverse();
  const start = query.page * query.size;
  return { events: distinct.slice(start, start + query.size), totalItems: distinct.length };
}

/** The events delivered to one subscription, as its deliveries index lists them. */
export interface SubscriptionDeliveredEvents {
  /**
   * One entry per delivery of the subscription (not past retention) whose event is of one of
   * `eventTypes` and occurred within `from`..`to` (inclusive), ascending by `<occurredAt>#<evt>#<dlv>`;
   * those still in their fan-out's first attempt (not written yet) included.
   */
  entries(workspaceId: string, subscriptionId: string, filter: { from?: string; to?: string; eventTypes: readonly EventType[] }): Promise<DeliveredEventEntry[]>;
}

export interface EventHistoryDependencies {
  subscriptions: Pick<SubscriptionStore, 'listWorkspace'>;
  events: Pick<EventLister, 'list' | 'get'>;
  delivered: SubscriptionDeliveredEvents;
  deliveries: Pick<DeliveryHistory, 'summaries'>;
}

const eventNotFound = () => new NotFoundError('The event does not exist.');

export class EventHistory {
  constructor(private readonly dependencies: EventHistoryDependencies) {}

  /**
   * The workspace's events of the types it subscribes to, with their delivery summaries. With
   * `subscriptionId` (a subscription of this workspace, else 404): only the events delivered to it,
   * and the counts of its deliveries only.
   */
  async listEvents(workspaceId: string, query: EventHistoryQuery): Promise<Page<ListedEvent>> {
    const { subscriptions, events, delivered, deliveries } = this.dependencies;
    const workspaceSubscriptions = await subscriptions.listWorkspace(workspaceId);
    const types = listedEventTypes(workspaceSubscriptions, query.eventType);
    let listed: { events: EventSummary[]; totalItems: number };
    if (query.subscriptionId !== undefined) {
      if (!workspaceSubscriptions.some((subscription) => subscription.id === query.subscriptionId)) {
        throw new NotFoundError('The event subscription does not exist.');
      }
      listed = distinctEventsPage(await delivered.entries(workspaceId, query.subscriptionId, { from: query.from, to: query.to, eventTypes: types }), query);
    } else {
      listed = await events.list(workspaceId, { page: query.page, size: query.size, from: query.from, to: query.to, sort: query.sort, eventTypes: types });
    }
    const summaries = await deliveries.summaries(
      listed.events.map((event) => event.eventId),
      query.subscriptionId === undefined ? {} : { subscriptionId: query.subscriptionId },
    );
    const data = listed.events.map((event) => ({ ...event, deliverySummary: summaries.get(event.eventId) ?? { total: 0, succeeded: 0, failed: 0, pending: 0 } }));
    return pageOf(data, query, listed.totalItems);
  }

  /** The recorded envelope with its data; 404 for a malformed id, another workspace's or an expired event. */
  async getEvent(workspaceId: string, eventId: string): Promise<EventEnvelope> {
    if (!isIdentifier('evt', eventId)) throw eventNotFound();
    const envelope = await this.dependencies.events.get(workspaceId, eventId);
    if (!envelope) throw eventNotFound();
    return envelope;
  }

  /**
   * The payload as a delivery POSTs it: rendered by `envelopeBody`, the sender's one rendering. Parsed
   * back for the HTTP layer, whose `JSON.stringify` of a parsed JSON text gives the same bytes again.
   */
  async getEventPayload(workspaceId: string, eventId: string): Promise<Record<string, unknown>> {
    return JSON.parse(envelopeBody(await this.getEvent(workspaceId, eventId))) as Record<string, unknown>;
  }
}
