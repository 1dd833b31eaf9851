import * as z from 'zod/mini';
import { toJSONSchema, type $ZodType as ZodType } from 'zod/v4/core';
import { apiBasePath, type RouteDefinition } from '../platform/route-table.ts';
import type { WebhookEventDefinition } from '../platform/webhook-event-table.ts';

// The OpenAPI 3.1 document is generated from the route table and its zod schemas, so it cannot drift
// from what the handlers validate. OpenAPI 3.1 uses JSON Schema 2020-12, zod's native target.

const errorEnvelopeSchema = z.object({
  error: z.object({
    code: z.string().register(z.globalRegistry, { description: 'Stable machine-readable code; branch on it, never on message.' }),
    message: z.string(),
    requestId: z.string().register(z.globalRegistry, { description: 'Also sent in the X-Request-Id response header.' }),
    retryable: z.boolean(),
    details: z
      .optional(
        z.array(
          z.object({
            field: z.string().register(z.globalRegistry, { description: 'JSON path exactly as sent, e.g. document.url' }),
            issue: z.string(),
          }),
        ),
      )
      .register(z.globalRegistry, { description: 'Only for VALIDATION_FAILED.' }),
  }),
});

const errorDescriptions: Record<number, string> = {
  400: 'INVALID_REQUEST: unreadable JSON, bad query value, or bad multipart body.',
  401: 'UNAUTHORIZED: API key missing, malformed, unknown or revoked.',
  403: 'FORBIDDEN: the key lacks the scope this operation needs.',
  404: 'NOT_FOUND: no such resource in the key\'s workspace.',
  405: 'METHOD_NOT_ALLOWED: see the Allow header.',
  406: 'NOT_ACCEPTABLE: Accept excludes application/json.',
  409: 'CONFLICT: the resource state does not allow this.',
  413: 'PAYLOAD_TOO_LARGE: the file exceeds 50 MB, or a body that is not a streamed upload exceeds the 10 MB the API buffers.',
  415: 'UNSUPPORTED_MEDIA_TYPE: unsupported request content type, or a blocked file type.',
  422: 'VALIDATION_FAILED: see details.',
  429: 'RATE_LIMITED: wait Retry-After seconds. The body may be plain text.',
  500: 'INTERNAL_ERROR: unexpected failure; retryable.',
  502: 'DOWNSTREAM_ERROR: a downstream service failed.',
};

// What any operation can answer, whatever its own errors: 400 (an unknown or repeated query parameter),
// 405, 406, 413 (a body over the 10 MB the gateway buffers, even where none is read) and 500; with a
// key, also 401, 403 and 429.
const publicErrorStatuses = [400, 405, 406, 413, 500];
const authenticatedErrorStatuses = [...publicErrorStatuses, 401, 403, 429];

const requestIdHeader = { 'X-Request-Id': { required: true, schema: { type: 'string' }, description: 'The request id, also in error bodies.' } };

export function buildOpenApiDocument(
  routes: readonly RouteDefinition[],
  serverUrl = apiBasePath,
  webhookEvents: readonly WebhookEventDefinition[] = [],
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const operations = (paths[route.path] ??= {});
    operations[route.method.toLowerCase()] = describeOperation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Paperflow public API',
      version: 'v1',
      description: [
        'Paperflow: files, document extraction, workflow runs, event subscriptions with signed webhooks and event history.',
        'Listed below: files (upload, pre-signed upload, read), extractions (create, upload, list, read, feedback, delete), workflow runs (start with JSON or multipart input, list, read with steps and nested runs), event subscriptions (create, list, read, update, delete) and events with their deliveries (list, read, resend).',
        'Operations marked x-paperflow-extension: true go beyond public API v1; their description says what they add.',
        'Workflows themselves are published by operators (paperflow-admin workflows publish), not through this API.',
        'Every response carries X-Request-Id; a client-sent X-Request-Id (1-128 printable ASCII characters, sent once) is echoed in the header and in error bodies.',
        'Query parameters: an operation answers 400 to a parameter it does not list, and to one sent more than once.',
        'Strings must be well-formed Unicode: a lone surrogate, or U+FFFD (what the decoding leaves of bytes that are not UTF-8), is refused with 422 naming the field in a JSON body and with 400 naming the parameter in the query.',
      ].join(' '),
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: serverUrl }],
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'Send "Authorization: api-key <key>". Keys look like pf_live_<random> and carry scopes.',
        },
      },
      schemas: { ErrorEnvelope: toJsonSchema(errorEnvelopeSchema, 'output') },
    },
    paths,
    ...(webhookEvents.length > 0 ? { webhooks: describeWebhooks(webhookEvents) } : {}),
  };
}

// What a subscription's endpoint receives (OpenAPI 3.1 `webhooks`): one POST per event type, the spec's
// envelope with that type's `data`, and the delivery headers of src/webhooks/delivery-headers.ts.
const deliveryHeaderParameters = [
  ['X-Paperflow-Event-Id', 'The event id (evt_…): the same on every attempt and resend; deduplicate on it.'],
  ['X-Paperflow-Event-Type', 'The event type, as in the body.'],
  ['X-Paperflow-Delivery-Id', 'The delivery (dlv_…): one per subscription and send (automatic or manual).'],
  ['X-Paperflow-Attempt', 'The attempt number of this delivery, from 1.'],
  ['X-Paperflow-Signature', 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>"> keyed by the signing secret (Stripe\'s format).'],
  ['webhook-id', 'Standard Webhooks: the event id.'],
  ['webhook-timestamp', 'Standard Webhooks: the send time in Unix seconds.'],
  ['webhook-signature', 'Standard Webhooks: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<raw body>">.'],
].map(([name, description]) => ({ name, in: 'header', required: true, description, schema: { type: 'string' } }));

function describeWebhooks(webhookEvents: readonly WebhookEventDefinition[]): Record<string, unknown> {
  const webhooks: Record<string, unknown> = {};
  for (const event of webhookEvents) {
    webhooks[event.eventType] = {
      post: {
        operationId: `receive${event.eventType.replace(/(^|[.-])(\w)/g, (_match, _separator: string, letter: string) => letter.toUpperCase())}`,
        summary: event.summary,
        parameters: deliveryHeaderParameters,
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                properties: {
                  eventId: { type: 'string' },
                  eventType: { const: event.eventType },
                  occurredAt: { type: 'string', description: 'When the terminal state was reached (ISO 8601, UTC).' },
                  apiVersion: { const: 'v1' },
                  data: toJsonSchema(event.data, 'output'),
                },
                required: ['eventId', 'eventType', 'occurredAt', 'apiVersion', 'data'],
                additionalProperties: false,
              },
            },
          },
        },
        responses: {
          '2XX': { description: 'Received. Any other answer, a redirect or no answer within the timeout is a failed attempt, retried up to six attempts in all.' },
        },
      },
    };
  }
  return webhooks;
}

function describeOperation(route: RouteDefinition): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries(route.responses)) {
    responses[status] = {
      description: response.description,
      headers: requestIdHeader,
      ...(response.schema ? { content: { 'application/json': { schema: toJsonSchema(response.schema, 'output') } } } : {}),
    };
  }
  const errorStatuses = new Set([
    ...(route.scope === 'public' ? publicErrorStatuses : authenticatedErrorStatuses),
    // Any JSON body is held to the text rule (src/platform/text-integrity.ts), whatever its schema.
    ...(route.requestBody?.['application/json'] ? [422] : []),
    ...(route.errorStatuses ?? []),
  ]);
  for (const status of [...errorStatuses].sort()) {
    const envelope = { schema: { $ref: '#/components/schemas/ErrorEnvelope' } };
    responses[String(status)] = {
      description: errorDescriptions[status] ?? 'Error.',
      headers: requestIdHeader,
      // The spec lets the edge answer 429 in plain text (API Gateway's throttling does).
      content: status === 429 ? { 'application/json': envelope, 'text/plain': { schema: { type: 'string' } } } : { 'application/json': envelope },
    };
  }
  return {
    operationId: route.operationId,
    summary: route.summary,
    ...(route.extension ? { description: `Extension beyond public API v1: ${route.extension}`, 'x-paperflow-extension': true } : {}),
    tags: [route.tag],
    ...(route.scope === 'public' ? { security: [] } : { 'x-paperflow-scope': route.scope }),
    parameters: [...pathParameters(route.path), ...queryParameters(route.query)],
    ...(route.requestBody ? { requestBody: describeRequestBody(route.requestBody, !route.requestBodyOptional) } : {}),
    responses,
  };
}

function pathParameters(path: string): unknown[] {
  return [...path.matchAll(/\{(\w+)\}/g)].map((match) => ({
    name: match[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
}

function queryParameters(query: ZodType | undefined): unknown[] {
  if (!query) return [];
  const schema = toJsonSchema(query) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  // An object-valued parameter is what the query parser reads as a deep object: `labels[key]=value`.
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: schema.required?.includes(name) ?? false,
    ...(property.type === 'object' ? { style: 'deepObject', explode: true } : {}),
    schema: property,
  }));
}

function describeRequestBody(bodies: NonNullable<RouteDefinition['requestBody']>, required: boolean): unknown {
  const content: Record<string, unknown> = {};
  for (const [contentType, schema] of Object.entries(bodies)) content[contentType] = { schema: toJsonSchema(schema) };
  return { required, content };
}

/**
 * Requests are described as the schema accepts them (`input`); responses as the service produces them
 * (`output`), where an object lists every property it may carry and no other.
 */
function toJsonSchema(schema: ZodType, io: 'input' | 'output' = 'input'): Record<string, unknown> {
  const { $schema: _dialect, ...jsonSchema } = toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
  return jsonSchema;
}
