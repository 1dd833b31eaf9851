import { describe, expect, it } from 'vitest';
import type { EventListQuery, EventListResult, EventSummary } from '../../../src/events/event-lister.ts';
import type { EventEnvelope, EventType } from '../../../src/events/event-envelope.ts';
import { buildOpenApiDocument } from '../../../src/http/openapi-document.ts';
import { routes } from '../../../src/manifest/routes.ts';
import { InvalidRequestError, NotFoundError } from '../../../src/platform/errors.ts';
import type { DeliverySummary } from '../../../src/webhooks/delivery-records.ts';
import { envelopeBody } from '../../../src/webhooks/event-payloads.ts';
import {
  distinctEventsPage,
  EventHistory,
  eventHistoryQueryOf,
  listedEventTypes,
  type DeliveredEventEntry,
} from '../../../src/webhooks/event-history.ts';
import { resendEventDeliveryRoute, eventRoutes } from '../../../src/webhooks/event-routes.ts';
import type { SubscriptionRecord } from '../../../src/webhooks/subscription.ts';

// The planning of GET /events: which types a workspace sees, the distinct events of a subscription's
// deliveries with exact totals across pages, the query rules, and the scopes of the five rows.

const completed: EventType = 'document-insights.extraction.completed';
const failed: EventType = 'document-insights.extraction.failed';
const runCompleted: EventType = 'workflow.run.completed';

describe('listedEventTypes', () => {
  it('is the union of the subscriptions\' types, each once', () => {
    expect(listedEventTypes([{ eventTypes: [failed, completed] }, { eventTypes: [completed, runCompleted] }])).toEqual([completed, failed, runCompleted]);
  });

  it('is empty without subscriptions', () => {
    expect(listedEventTypes([])).toEqual([]);
  });

  it('narrows to eventType, and to nothing for a type nobody subscribes to', () => {
    const subscriptions = [{ eventTypes: [completed, failed] }];
    expect(listedEventTypes(subscriptions, failed)).toEqual([failed]);
    expect(listedEventTypes(subscriptions, runCompleted)).toEqual([]);
  });
});

describe('distinctEventsPage', () => {
  const entry = (n: number, eventId = `evt_${n}`): DeliveredEventEntry => ({ eventId, eventType: completed, occurredAt: `2026-01-0${n}T00:00:00.000Z` });
  // Event 2 was resent twice and event 4 once: its deliveries are adjacent in the index.
  const entries = [entry(1), entry(2), entry(2), entry(2), entry(3), entry(4), entry(4), entry(5)];

  it('counts each event once, however often it was delivered', () => {
    const page = distinctEventsPage(entries, { page: 0, size: 50, sort: 'asc' });
    expect(page.totalItems).toBe(5);
    expect(page.events.map((event) => event.eventId)).toEqual(['evt_1', 'evt_2', 'evt_3', 'evt_4', 'evt_5']);
    expect(page.events[0]).toEqual({ eventId: 'evt_1', eventType: completed, occurredAt: '2026-01-01T00:00:00.000Z', apiVersion: 'v1' });
  });

  it('pages across the repeats with exact totals (sort desc)', () => {
    const pages = [0, 1, 2].map((page) => distinctEventsPage(entries, { page, size: 2, sort: 'desc' }));
    expect(pages.map((page) => page.events.map((event) => event.eventId))).toEqual([['evt_5', 'evt_4'], ['evt_3', 'evt_2'], ['evt_1']]);
    expect(pages.every((page) => page.totalItems === 5)).toBe(true);
    expect(distinctEventsPage(entries, { page: 3, size: 2, sort: 'desc' })).toEqual({ events: [], totalItems: 5 });
  });
});

describe('eventHistoryQueryOf', () => {
  it('applies the defaults', () => {
    expect(eventHistoryQueryOf({})).toEqual({ page: 0, size: 50, sort: 'desc' });
  });

  it('normalises the bounds to UTC and refuses from after to', () => {
    expect(eventHistoryQueryOf({ from: '2026-01-01T02:00:00+02:00', to: '2026-01-02T00:00:00Z' })).toMatchObject({
      from: '2026-01-01T00:00:00.000Z',
      to: '2026-01-02T00:00:00.000Z',
    });
    expect(() => eventHistoryQueryOf({ from: '2026-01-03T00:00:00Z', to: '2026-01-02T00:00:00Z' })).toThrow(InvalidRequestError);
  });

  it('refuses out-of-range paging', () => {
    expect(() => eventHistoryQueryOf({ size: '101' })).toThrow(InvalidRequestError);
    expect(() => eventHistoryQueryOf({ page: '-1' })).toThrow(InvalidRequestError);
  });
});

describe('EventHistory', () => {
  const workspaceId = 'ws_history';
  const subscription = (id: string, eventTypes: EventType[]): SubscriptionRecord => ({
    id,
    workspaceId,
    name: id,
    endpointUrl: 'https://hooks.example.com',
    eventTypes,
    filters: {},
    status: 'active',
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  });
  const summary = (eventId: string): EventSummary => ({ eventId, eventType: completed, occurredAt: '2026-01-01T00:00:00.000Z', apiVersion: 'v1' });

  function history(subscriptions: SubscriptionRecord[], stored: EventEnvelope[] = []) {
    const listCalls: EventListQuery[] = [];
    const summaryCalls: { eventIds: string[]; subscriptionId?: string }[] = [];
    const entryCalls: { subscriptionId: string; eventTypes: readonly EventType[] }[] = [];
    const service = new EventHistory({
      subscriptions: { listWorkspace: async () => subscriptions },
      events: {
        list: async (_workspaceId: string, query: EventListQuery): Promise<EventListResult> => {
          listCalls.push(query);
          return { events: [summary('evt_a')], totalItems: 1 };
        },
        get: async (_workspaceId: string, eventId: string) => stored.find((event) => event.eventId === eventId),
      },
      delivered: {
        entries: async (_workspaceId, subscriptionId, filter) => {
          entryCalls.push({ subscriptionId, eventTypes: filter.eventTypes });
          return [{ eventId: 'evt_b', eventType: completed, occurredAt: '2026-01-01T00:00:00.000Z' }];
        },
      },
      deliveries: {
        summaries: async (eventIds: string[], filter: { subscriptionId?: string } = {}) => {
          summaryCalls.push({ eventIds, ...filter });
          return new Map<string, DeliverySummary>(eventIds.map((id) => [id, { total: 2, succeeded: 1, failed: 1, pending: 0 }]));
        },
      },
    });
    return { service, listCalls, summaryCalls, entryCalls };
  }

  it('lists the subscribed types of the workspace, with the summaries of all subscriptions', async () => {
    const { service, listCalls, summaryCalls } = history([subscription('sub_1', [failed]), subscription('sub_2', [completed])]);

    const page = await service.listEvents(workspaceId, { page: 0, size: 10, sort: 'desc' });

    expect(listCalls[0]!.eventTypes).toEqual([completed, failed]);
    expect(summaryCalls).toEqual([{ eventIds: ['evt_a'] }]);
    expect(page).toEqual({ data: [{ ...summary('evt_a'), deliverySummary: { total: 2, succeeded: 1, failed: 1, pending: 0 } }], pageInfo: { page: 0, size: 10, totalItems: 1, totalPages: 1 } });
  });

  it('scopes the list and the counts to a subscription of the workspace', async () => {
    const { service, listCalls, summaryCalls, entryCalls } = history([subscription('sub_1', [failed]), subscription('sub_2', [completed])]);

    const page = await service.listEvents(workspaceId, { page: 0, size: 10, sort: 'desc', subscriptionId: 'sub_2' });

    expect(listCalls).toEqual([]);
    expect(entryCalls).toEqual([{ subscriptionId: 'sub_2', eventTypes: [completed, failed] }]);
    expect(summaryCalls).toEqual([{ eventIds: ['evt_b'], subscriptionId: 'sub_2' }]);
    expect(page.data.map((event) => event.eventId)).toEqual(['evt_b']);
  });

  it('answers 404 for a subscriptionId that is not the workspace\'s', async () => {
    const { service } = history([subscription('sub_1', [failed])]);

    await expect(service.listEvents(workspaceId, { page: 0, size: 10, sort: 'desc', subscriptionId: 'sub_other' })).rejects.toThrow(NotFoundError);
  });

  it('returns the payload exactly as envelopeBody renders it, and 404 for malformed or unknown ids', async () => {
    const event: EventEnvelope = {
      eventId: 'evt_01JZ0000000000000000000000',
      eventType: completed,
      occurredAt: '2026-01-01T00:00:00.000Z',
      apiVersion: 'v1',
      data: { extractionId: 'ext_1', nested: { b: 1, a: [1.5, null, 'x'] } },
    };
    // Stored with its fields in another order: the answer follows the sender's order.
    const reordered = { data: event.data, apiVersion: event.apiVersion, occurredAt: event.occurredAt, eventType: event.eventType, eventId: event.eventId } as EventEnvelope;
    const { service } = history([], [reordered]);

    expect(JSON.stringify(await service.getEventPayload(workspaceId, event.eventId))).toBe(envelopeBody(event));
    await expect(service.getEvent(workspaceId, 'evt_01JZ0000000000000000000001')).rejects.toThrow(NotFoundError);
    await expect(service.getEvent(workspaceId, 'not-an-id')).rejects.toThrow(NotFoundError);
  });
});

describe('the event rows', () => {
  it('read with events:read and resend with subscriptions:write', () => {
    expect(Object.fromEntries(eventRoutes.map((route) => [route.operationId, route.scope]))).toEqual({
      listEvents: 'events:read',
      getEvent: 'events:read',
      listEventDeliveries: 'events:read',
      getEventDelivery: 'events:read',
      resendEventDelivery: 'subscriptions:write',
    });
    expect(resendEventDeliveryRoute.access).toMatchObject({ queues: { webhookDelivery: 'send' } });
  });

  it('are in the OpenAPI document with their parameters and answers', () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    const document = buildOpenApiDocument(routes) as any;
    const names = (operation: { parameters?: { name: string; in: string }[] }) => (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name).sort();

    expect(names(document.paths['/events'].get)).toEqual(['eventType', 'from', 'page', 'size', 'sort', 'subscriptionId', 'to']);
    expect(names(document.paths['/events/{eventId}/deliveries'].get)).toEqual(['page', 'size', 'subscriptionId']);
    expect(document.paths['/events/{eventId}'].get.responses).toHaveProperty('200');
    expect(document.paths['/events/{eventId}/deliveries/{deliveryId}'].get.responses).toHaveProperty('200');
    expect(document.paths['/events/{eventId}/deliveries/{deliveryId}/resend'].post.responses).toHaveProperty('202');
    expect(document.paths['/events/{eventId}/deliveries/{deliveryId}/resend'].post.responses).toHaveProperty('409');
  });
});
