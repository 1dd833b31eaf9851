import * as z from 'zod/mini';
import type { ResourceAccess } from '../platform/resource-access.ts';
import { defineRoute, type RouteDefinition } from '../platform/route-table.ts';
import { eventTypes } from '../events/event-envelope.ts';
import { createSubscriptionRequestSchema, listSubscriptionsQuerySchema, updateSubscriptionRequestSchema } from './subscription-requests.ts';
import { subscriptionQuota, subscriptionStatuses } from './subscription.ts';

const subscriptionFields = {
  id: z.string().register(z.globalRegistry, { description: 'sub_ followed by 26 characters.' }),
  name: z.string(),
  endpointUrl: z.string(),
  eventTypes: z.array(z.enum(eventTypes)),
  filters: z.object({ workflowId: z.optional(z.string()) }),
  status: z.enum(subscriptionStatuses),
  createdAt: z.string(),
  updatedAt: z.string(),
};

export const subscriptionSchema = z.object(subscriptionFields);

const createdSubscriptionSchema = z.object({
  ...subscriptionFields,
  signingSecret: z.string().register(z.globalRegistry, {
    description: 'whsec_ + base64 of 32 random bytes. Shown only here: no other operation returns it. Verify deliveries with it (X-Paperflow-Signature, webhook-signature).',
  }),
});

const integer = () => z.number().check(z.int());
const pageInfoSchema = z.object({ page: integer(), size: integer(), totalItems: integer(), totalPages: integer() });

// Only creating a subscription encrypts a secret, so only its function is granted the signing key;
// the delivery consumer (its decrypting reader) gets `decrypt`.
// A PATCH that resumes a subscription queues the attempts held while it was paused.
const access: Record<'create' | 'read' | 'write' | 'update', ResourceAccess> = {
  create: { recordsTable: 'readWrite', signingKey: 'encrypt' },
  read: { recordsTable: 'read' },
  write: { recordsTable: 'readWrite' },
  update: { recordsTable: 'readWrite', queues: { webhookDelivery: 'send' } },
};

const tag = 'Event subscription';

export const createSubscriptionRoute = defineRoute({
  operationId: 'createEventSubscription',
  method: 'POST',
  path: '/event-subscriptions',
  handler: 'functions/webhooks/create-subscription.ts',
  acceptsIdempotencyKey: true,
  scope: 'subscriptions:write',
  access: access.create,
  summary: `Subscribe an HTTPS endpoint to event types; the answer carries the signing secret, once. At most ${subscriptionQuota} per workspace (409 beyond).`,
  tag,
  requestBody: { 'application/json': createSubscriptionRequestSchema },
  responses: { 201: { description: 'The new, active subscription with its signingSecret.', schema: createdSubscriptionSchema } },
  errorStatuses: [400, 409, 415, 422, 502],
});

export const listSubscriptionsRoute = defineRoute({
  operationId: 'listEventSubscriptions',
  method: 'GET',
  path: '/event-subscriptions',
  handler: 'functions/webhooks/list-subscriptions.ts',
  scope: 'subscriptions:read',
  access: access.read,
  summary: 'The workspace\'s subscriptions (never their secrets), filtered, sorted and paged with exact totals.',
  tag,
  query: listSubscriptionsQuerySchema,
  responses: { 200: { description: 'A page of subscriptions.', schema: z.object({ data: z.array(subscriptionSchema), pageInfo: pageInfoSchema }) } },
  errorStatuses: [400, 502],
});

export const getSubscriptionRoute = defineRoute({
  operationId: 'getEventSubscription',
  method: 'GET',
  path: '/event-subscriptions/{subscriptionId}',
  handler: 'functions/webhooks/get-subscription.ts',
  scope: 'subscriptions:read',
  access: access.read,
  summary: 'One subscription, without its secret.',
  tag,
  responses: { 200: { description: 'The subscription.', schema: subscriptionSchema } },
  errorStatuses: [404, 502],
});

export const updateSubscriptionRoute = defineRoute({
  operationId: 'updateEventSubscription',
  method: 'PATCH',
  path: '/event-subscriptions/{subscriptionId}',
  handler: 'functions/webhooks/update-subscription.ts',
  scope: 'subscriptions:write',
  access: access.update,
  summary: 'Change the name, endpoint, event types, filters or status (active, paused); a signingSecret in the body is 422.',
  tag,
  requestBody: { 'application/json': updateSubscriptionRequestSchema },
  responses: { 200: { description: 'The updated subscription, without its secret.', schema: subscriptionSchema } },
  errorStatuses: [400, 404, 415, 422, 502],
});

export const deleteSubscriptionRoute = defineRoute({
  operationId: 'deleteEventSubscription',
  method: 'DELETE',
  path: '/event-subscriptions/{subscriptionId}',
  handler: 'functions/webhooks/delete-subscription.ts',
  scope: 'subscriptions:write',
  access: access.write,
  summary: 'Delete a subscription, freeing its quota slot.',
  tag,
  responses: { 204: { description: 'Deleted.' } },
  errorStatuses: [404, 502],
});

/** This feature's rows, in the order the table lists them. */
export const subscriptionRoutes: RouteDefinition[] = [createSubscriptionRoute, listSubscriptionsRoute, getSubscriptionRoute, updateSubscriptionRoute, deleteSubscriptionRoute];
