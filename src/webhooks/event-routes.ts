import * as z from 'zod/mini';
import { pageQueryParameters } from '../platform/pagination.ts';
import type { ResourceAccess } from '../platform/resource-access.ts';
import { defineRoute, type RouteDefinition } from '../platform/route-table.ts';
import { eventTypes } from '../events/event-envelope.ts';
import { detailAttemptLimit } from './delivery-history.ts';

// The Events endpoints of the spec: the event history, one event's payload, its deliveries, and a
// manual resend (docs/webhooks.md, "Events API").

const integer = () => z.number().check(z.int());
const pageInfoSchema = z.object({ page: integer(), size: integer(), totalItems: integer(), totalPages: integer() });
const isoDateTime = z.iso.datetime({ offset: true });

const envelopeFields = {
  eventId: z.string().register(z.globalRegistry, { description: 'evt_ followed by 26 characters; the same on every attempt.' }),
  eventType: z.enum(eventTypes),
  occurredAt: z.string().register(z.globalRegistry, { description: 'When the terminal state was reached (ISO 8601, UTC).' }),
  apiVersion: z.literal('v1'),
};

const deliverySummarySchema = z.object({ total: integer(), succeeded: integer(), failed: integer(), pending: integer() });

const listedEventSchema = z.object({
  ...envelopeFields,
  deliverySummary: deliverySummarySchema.register(z.globalRegistry, {
    description: 'Counts of the event\'s deliveries (automatic and resends) by status; of one subscription when subscriptionId is given.',
  }),
});

export const eventEnvelopeSchema = z.object({
  ...envelopeFields,
  data: z.record(z.string(), z.unknown()).register(z.globalRegistry, { description: 'The event-specific payload (spec, Event types).' }),
});

const deliveryFields = {
  id: z.string().register(z.globalRegistry, { description: 'dlv_ followed by 26 characters.' }),
  eventId: z.string(),
  subscriptionId: z.string(),
  eventType: z.enum(eventTypes),
  trigger: z.enum(['automatic', 'manual']),
  status: z.enum(['PENDING', 'SUCCEEDED', 'FAILED']),
  attemptCount: integer(),
  maxAttempts: integer().register(z.globalRegistry, { description: '6 for an automatic delivery, 1 for a manual resend.' }),
  createdAt: z.string(),
  updatedAt: z.string(),
  lastAttemptAt: z.nullable(z.string()),
  nextAttemptAt: z.nullable(z.string()),
  lastResponseStatus: z.nullable(integer()),
};

export const deliverySchema = z.object(deliveryFields);

const attemptSchema = z.object({
  number: integer(),
  startedAt: z.string(),
  durationMs: z.nullable(integer()),
  requestHeaders: z.record(z.string(), z.string()).register(z.globalRegistry, {
    description: 'The headers as sent, with the values of X-Paperflow-Signature and webhook-signature replaced by [redacted].',
  }),
  responseStatus: z.nullable(integer()),
  responseBody: z.nullable(z.string()).register(z.globalRegistry, { description: 'The first 4 KB of the response body.' }),
  error: z.nullable(
    z.object({
      kind: z.enum(['timeout', 'connection refused', 'tls', 'dns', 'blocked address', 'redirect', 'http status']),
      message: z.string(),
    }),
  ),
  outcome: z.enum(['pending', 'succeeded', 'failed']).register(z.globalRegistry, { description: 'pending while the POST is under way.' }),
});

const deliveryDetailSchema = z.object({
  ...deliveryFields,
  payload: eventEnvelopeSchema,
  attempts: z.array(attemptSchema).register(z.globalRegistry, { description: `The ${detailAttemptLimit} most recent attempts, oldest first.` }),
  attemptsOmitted: z.boolean().register(z.globalRegistry, { description: 'True when older attempts exist than those listed.' }),
});

export const listEventsQuerySchema = z.object({
  ...pageQueryParameters,
  subscriptionId: z.optional(z.string()).register(z.globalRegistry, {
    description: 'Only events delivered to this subscription of the workspace (404 when it has none such); the summaries count its deliveries only.',
  }),
  eventType: z.optional(z.enum(eventTypes)).register(z.globalRegistry, { description: 'Only this type (empty when no subscription names it).' }),
  from: z.optional(isoDateTime).register(z.globalRegistry, { description: 'Occurred at or after (ISO 8601).' }),
  to: z.optional(isoDateTime).register(z.globalRegistry, { description: 'Occurred at or before (ISO 8601).' }),
  sort: z.optional(z.enum(['asc', 'desc'])).register(z.globalRegistry, { description: 'By occurredAt; default desc.' }),
});

export const listEventDeliveriesQuerySchema = z.object({
  ...pageQueryParameters,
  subscriptionId: z.optional(z.string()).register(z.globalRegistry, { description: 'Only the deliveries to this subscription.' }),
});

// Large event data is in the files bucket: the reads that return the payload may read it there. A
// resend writes its delivery and queues its one attempt.
const access: Record<'list' | 'payload' | 'resend', ResourceAccess> = {
  list: { recordsTable: 'read' },
  payload: { recordsTable: 'read', filesBucket: 'read' },
  resend: { recordsTable: 'readWrite', filesBucket: 'read', queues: { webhookDelivery: 'send' } },
};

const tag = 'Events';

export const listEventsRoute = defineRoute({
  operationId: 'listEvents',
  method: 'GET',
  path: '/events',
  handler: 'functions/webhooks/list-events.ts',
  scope: 'events:read',
  access: access.list,
  summary: 'The workspace\'s events of the types its subscriptions name, without data, each with its delivery summary; paged with exact totals.',
  tag,
  query: listEventsQuerySchema,
  responses: { 200: { description: 'A page of events.', schema: z.object({ data: z.array(listedEventSchema), pageInfo: pageInfoSchema }) } },
  errorStatuses: [400, 404, 502],
});

export const getEventRoute = defineRoute({
  operationId: 'getEvent',
  method: 'GET',
  path: '/events/{eventId}',
  handler: 'functions/webhooks/get-event.ts',
  scope: 'events:read',
  access: access.payload,
  summary: 'One event: the exact JSON a delivery POSTs.',
  tag,
  responses: { 200: { description: 'The event envelope with its data.', schema: eventEnvelopeSchema } },
  errorStatuses: [404, 502],
});

export const listEventDeliveriesRoute = defineRoute({
  operationId: 'listEventDeliveries',
  method: 'GET',
  path: '/events/{eventId}/deliveries',
  handler: 'functions/webhooks/list-event-deliveries.ts',
  scope: 'events:read',
  access: access.list,
  summary: 'Every automatic delivery and manual resend of the event, oldest first; paged with exact totals.',
  tag,
  query: listEventDeliveriesQuerySchema,
  responses: { 200: { description: 'A page of deliveries.', schema: z.object({ data: z.array(deliverySchema), pageInfo: pageInfoSchema }) } },
  errorStatuses: [400, 404, 502],
});

export const getEventDeliveryRoute = defineRoute({
  operationId: 'getEventDelivery',
  method: 'GET',
  path: '/events/{eventId}/deliveries/{deliveryId}',
  handler: 'functions/webhooks/get-event-delivery.ts',
  scope: 'events:read',
  access: access.payload,
  summary: `One delivery with the event payload and its ${detailAttemptLimit} most recent HTTP attempts (signatures redacted).`,
  tag,
  responses: { 200: { description: 'The delivery detail.', schema: deliveryDetailSchema } },
  errorStatuses: [404, 502],
});

export const resendEventDeliveryRoute = defineRoute({
  operationId: 'resendEventDelivery',
  method: 'POST',
  path: '/events/{eventId}/deliveries/{deliveryId}/resend',
  handler: 'functions/webhooks/resend-event-delivery.ts',
  // A resend makes the service POST to the subscription's endpoint: an action on the subscription.
  scope: 'subscriptions:write',
  access: access.resend,
  summary: 'Send the event again to the delivery\'s subscription, whatever the delivery\'s state: a new manual delivery with one attempt. 409 unless the subscription is active.',
  tag,
  responses: { 202: { description: 'Accepted: the new manual delivery, PENDING.', schema: deliverySchema } },
  errorStatuses: [404, 409, 502],
});

/** This feature's event rows, in the order the table lists them. */
export const eventRoutes: RouteDefinition[] = [listEventsRoute, getEventRoute, listEventDeliveriesRoute, getEventDeliveryRoute, resendEventDeliveryRoute];
