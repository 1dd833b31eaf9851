import * as z from 'zod/mini';
import { pageQueryParameters } from '../platform/pagination.ts';
import { checkOutboundUrl } from '../outbound/outbound-url.ts';
import { outboundUrlPolicyFor, type OutboundUrlPolicy } from '../outbound/outbound-settings.ts';
import { ValidationError } from '../platform/errors.ts';
import { eventTypes } from '../events/event-envelope.ts';
import { subscriptionStatuses } from './subscription.ts';

// The request bodies of the subscription routes, checked at the edge: every rule answers 422
// VALIDATION_FAILED with the field path as sent, all problems of a body in one answer. Objects are
// strict, so an unknown field (`signingSecret`, `id`, `createdAt` in a PATCH) is refused by name, never
// silently dropped.

export const maximumNameLength = 128;
export const maximumEndpointUrlLength = 2048;
export const maximumWorkflowIdLength = 128;

const nameSchema = z
  .string()
  .check(
    z.superRefine((name, context) => {
      const length = [...name].length;
      if (length === 0 || name.trim() === '') context.addIssue({ code: 'custom', message: 'must not be blank', input: name });
      else if (length > maximumNameLength) context.addIssue({ code: 'custom', message: `must be at most ${maximumNameLength} characters`, input: name });
    }),
  )
  .register(z.globalRegistry, { minLength: 1, maxLength: maximumNameLength, description: `1-${maximumNameLength} characters (Unicode code points), not blank.` });

// Webhook endpoints refuse fragments too: a fragment never reaches the server, so a stored one would
// only suggest a routing the receiver never sees. What is stored is exactly what is called.
// The schema checks what the URL text decides in every deployment (absolute, http or https, no
// credentials, no fragment); whether plain http and private addresses are allowed is the deployment's
// policy, which the subscription service is given and checks (checkEndpointUrl), so no schema built at
// import time depends on how the process was configured.
const anyDeploymentUrlPolicy = outboundUrlPolicyFor(true);
const formOnly = { refuseFragment: true, checkHost: false };
const endpointUrlSchema = z
  .string()
  .check(
    z.superRefine((url, context) => {
      if (url.length > maximumEndpointUrlLength) {
        context.addIssue({ code: 'custom', message: `must be at most ${maximumEndpointUrlLength} characters`, input: url });
        return;
      }
      const checked = checkOutboundUrl(url, formOnly, anyDeploymentUrlPolicy);
      if (!checked.ok) context.addIssue({ code: 'custom', message: checked.issue, input: url });
    }),
  )
  .register(z.globalRegistry, {
    format: 'uri',
    maxLength: maximumEndpointUrlLength,
    description:
      'An HTTPS URL that receives the deliveries: no user credentials, no fragment, no private, loopback or reserved IP literal or local host name ' +
      '(names resolving to such addresses are refused at send time).',
  });

const eventTypesSchema = z
  .array(z.enum(eventTypes))
  .check(
    z.minLength(1, 'must list at least one event type'),
    z.superRefine((types, context) => {
      types.forEach((type, index) => {
        if (types.indexOf(type) !== index) context.addIssue({ code: 'custom', message: 'is listed twice', path: [index], input: type });
      });
    }),
  )
  .register(z.globalRegistry, { uniqueItems: true, description: 'The event types delivered: a non-empty list of the five known types, each once.' });

const filtersSchema = z
  .strictObject({
    workflowId: z
      .optional(z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(maximumWorkflowIdLength)))
      .register(z.globalRegistry, { description: 'Deliver workflow events of this workflow only; extraction events are selected by type alone.' }),
  })
  .register(z.globalRegistry, { description: 'Optional; {} (or leaving it out) means no filter. A PATCH replaces the whole object.' });

export const createSubscriptionRequestSchema = z.strictObject({
  name: nameSchema,
  endpointUrl: endpointUrlSchema,
  eventTypes: eventTypesSchema,
  filters: z.optional(filtersSchema),
});

export const updateSubscriptionRequestSchema = z
  .strictObject({
    name: z.optional(nameSchema),
    endpointUrl: z.optional(endpointUrlSchema),
    eventTypes: z.optional(eventTypesSchema),
    filters: z.optional(filtersSchema),
    status: z.optional(z.enum(subscriptionStatuses)).register(z.globalRegistry, { description: 'paused suspends deliveries; active resumes them.' }),
  })
  .check(z.refine((changes) => Object.keys(changes).length > 0, 'must change at least one of name, endpointUrl, eventTypes, filters, status'))
  .register(z.globalRegistry, { description: 'The fields to change, at least one. The signing secret cannot be changed or sent (422).' });

const isoDateTime = z.iso.datetime({ offset: true });

/** A rotation's overlap: Svix's and Stripe's default of a day, at most a week. */
export const defaultOverlapHours = 24;
export const maximumOverlapHours = 168;

export const rotateSigningSecretRequestSchema = z
  .strictObject({
    overlapHours: z
      .optional(z.number().check(z.gte(0, 'must be 0 or more'), z.lte(maximumOverlapHours, `must be at most ${maximumOverlapHours} (a week)`)))
      .register(z.globalRegistry, {
        description:
          `How long the secret being replaced keeps signing beside the new one, in hours (fractions allowed: 0.25 is 15 minutes); ` +
          `default ${defaultOverlapHours}, 0 removes it at once, at most ${maximumOverlapHours}.`,
      }),
  })
  .register(z.globalRegistry, { description: 'Optional; no body means the default overlap.' });

/** The endpoint URL under the deployment's policy (https only and no private address, unless local development relaxes it). */
export function checkEndpointUrl(endpointUrl: string, policy: OutboundUrlPolicy): void {
  const checked = checkOutboundUrl(endpointUrl, { refuseFragment: true }, policy);
  if (!checked.ok) throw new ValidationError([{ field: 'endpointUrl', issue: checked.issue }]);
}

export const recoverFailedDeliveriesRequestSchema = z.strictObject({
  since: isoDateTime.register(z.globalRegistry, { description: 'Deliveries that ended FAILED at or after this time (ISO 8601 with its zone) are sent again.' }),
});

export const listSubscriptionsQuerySchema = z.object({
  ...pageQueryParameters,
  name: z.optional(z.string()).register(z.globalRegistry, { description: 'Case-insensitive substring of the name.' }),
  status: z.optional(z.enum(subscriptionStatuses)),
  eventType: z.optional(z.enum(eventTypes)).register(z.globalRegistry, { description: 'Subscriptions that receive this event type.' }),
  from: z.optional(isoDateTime).register(z.globalRegistry, { description: 'Created at or after (ISO 8601).' }),
  to: z.optional(isoDateTime).register(z.globalRegistry, { description: 'Created at or before (ISO 8601).' }),
  sortBy: z.optional(z.enum(['createdAt', 'updatedAt'])).register(z.globalRegistry, { description: 'Default createdAt.' }),
  sort: z.optional(z.enum(['asc', 'desc'])).register(z.globalRegistry, { description: 'Default desc.' }),
});

export type CreateSubscriptionRequest = z.infer<typeof createSubscriptionRequestSchema>;
export type UpdateSubscriptionRequest = z.infer<typeof updateSubscriptionRequestSchema>;
export type ListSubscriptionsQuery = z.infer<typeof listSubscriptionsQuerySchema>;
export type RotateSigningSecretRequest = z.infer<typeof rotateSigningSecretRequestSchema>;
export type RecoverFailedDeliveriesRequest = z.infer<typeof recoverFailedDeliveriesRequestSchema>;
