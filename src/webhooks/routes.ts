import * as z from 'zod/mini';
import type { ResourceAccess } from '../platform/resource-access.ts';
import { defineRoute, type RouteDefinition } from '../platform/route-table.ts';
import { eventTypes } from '../events/event-envelope.ts';
import {
  createSubscriptionRequestSchema,
  listSubscriptionsQuerySchema,
  maximumOverlapHours,
  recoverFailedDeliveriesRequestSchema,
  rotateSigningSecretRequestSchema,
  updateSubscriptionRequestSchema,
} from './subscription-requests.ts';
import { recoveriesPerRequest } from './delivery-recovery.ts';
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

const rotatedSigningSecretSchema = z.object({
  subscriptionId: z.string(),
  signingSecret: z.string().register(z.globalRegistry, { description: 'The new secret, whsec_ + base64 of 32 random bytes. Shown only here.' }),
  previousSecretExpiresAt: z.nullable(z.string()).register(z.globalRegistry, {
    description: 'Until then (ISO 8601) every delivery is signed with the old secret too; null when it was removed at once (overlapHours 0).',
  }),
});

const integer = () => z.number().check(z.int());

const recoveredDeliveriesSchema = z.object({
  recovered: integer().register(z.globalRegistry, { description: `New manual deliveries queued by this request, at most ${recoveriesPerRequest}.` }),
  hasMore: z.boolean().register(z.globalRegistry, { description: 'More FAILED deliveries since that time wait: send the same request again.' }),
});
const pageInfoSchema = z.object({ page: integer(), size: integer(), totalItems: integer(), totalPages: integer() });

// Only creating a subscription and rotating its secret encrypt a secret, so only their functions are
// granted the signing key; the delivery consumer (its decrypting reader) gets `decrypt`.
// A PATCH that resumes a subscription, and a recover, queue delivery attempts.
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

export const rotateSigningSecretRoute = defineRoute({
  operationId: 'rotateEventSubscriptionSecret',
  method: 'POST',
  path: '/event-subscriptions/{subscriptionId}/rotate-secret',
  handler: 'functions/webhooks/rotate-signing-secret.ts',
  scope: 'subscriptions:write',
  access: access.create,
  summary: `Replace the signing secret; the answer carries the new one, once. The old one keeps signing beside it for overlapHours (default 24, at most ${maximumOverlapHours}).`,
  extension:
    'signing-secret rotation, as Svix and Stripe offer. During the overlap every delivery carries two signatures (two v1= values in X-Paperflow-Signature, ' +
    'two space-separated entries in webhook-signature), so receivers verifying with either secret accept it; afterwards only the new secret signs and the old ' +
    'one is removed from the record. Rotating again within an overlap replaces the previous secret: the oldest stops signing at once.',
  tag,
  requestBody: { 'application/json': rotateSigningSecretRequestSchema },
  requestBodyOptional: true,
  responses: { 200: { description: 'The new secret and until when the old one still signs.', schema: rotatedSigningSecretSchema } },
  errorStatuses: [404, 415, 422, 502],
});

export const recoverFailedDeliveriesRoute = defineRoute({
  operationId: 'recoverEventSubscriptionDeliveries',
  method: 'POST',
  path: '/event-subscriptions/{subscriptionId}/recover',
  handler: 'functions/webhooks/recover-failed-deliveries.ts',
  // It makes the service POST to the subscription's endpoint, as a resend does.
  scope: 'subscriptions:write',
  access: access.update,
  summary: `Send again every delivery of the subscription that ended FAILED since a time: a new manual delivery each, at most ${recoveriesPerRequest} per request. 409 unless the subscription is active.`,
  extension:
    'failed-delivery recovery, as Svix offers. Each FAILED delivery is recovered once (it records the delivery that recovered it), so repeating a request ' +
    `sends nothing twice; with hasMore, repeat it for the next ${recoveriesPerRequest}. A recovery that fails in turn is a FAILED delivery of its own, which a later recover sends again.`,
  tag,
  requestBody: { 'application/json': recoverFailedDeliveriesRequestSchema },
  responses: { 202: { description: 'Accepted: how many deliveries were queued, and whether more wait.', schema: recoveredDeliveriesSchema } },
  errorStatuses: [404, 409, 415, 422, 502],
});

/** This feature's rows, in the order the table lists them. */
export const subscriptionRoutes: RouteDefinition[] = [
  createSubscriptionRoute,
  listSubscriptionsRoute,
  getSubscriptionRoute,
  updateSubscriptionRoute,
  deleteSubscriptionRoute,
  rotateSigningSecretRoute,
  recoverFailedDeliveriesRoute,
];
