import createClient, { type Client } from 'openapi-fetch';
import type { paths, webhooks } from './api-schema.ts';

// The typed client of the public API: openapi-fetch over the types openapi-typescript generates from
// the served OpenAPI document (scripts/generate-api-client.ts), so a call's path, parameters, body and
// answer are checked by the compiler against what the service documents. Browser-safe (the review
// console can use it); the webhook verification helper, which needs node:crypto, is ./webhook-events.ts.

export type { paths, webhooks } from './api-schema.ts';
export type PaperflowClient = Client<paths>;

export interface PaperflowClientOptions {
  /** The API's base URL, e.g. http://localhost:3000/v1 or the deployed stage's URL. */
  apiUrl: string;
  /** A workspace key, pf_live_…: sent as `Authorization: api-key <key>`. */
  apiKey: string;
  /** Another fetch (tests, a proxy); the global one by default. */
  fetch?: typeof globalThis.fetch;
}

export function createPaperflowClient(options: PaperflowClientOptions): PaperflowClient {
  const client = createClient<paths>({ baseUrl: options.apiUrl.replace(/\/+$/, ''), ...(options.fetch ? { fetch: options.fetch } : {}) });
  client.use({
    onRequest({ request }) {
      request.headers.set('Authorization', `api-key ${options.apiKey}`);
      return request;
    },
  });
  return client;
}

type WebhookBody<EventType extends keyof webhooks> = webhooks[EventType]['post'] extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never;

/** An event as a subscription's endpoint receives it: the envelope, typed by its eventType. */
export type PaperflowEvent = { [EventType in keyof webhooks]: WebhookBody<EventType> }[keyof webhooks];
