import { verifyPaperflowSignature, WebhookSignatureError, type VerifyOptions } from '../webhooks/webhook-signature.ts';
import type { PaperflowEvent } from './paperflow-client.ts';

// For receivers written in TypeScript: check a delivery's X-Paperflow-Signature against the raw body
// with the subscription's signing secret (any of the header's v1 values, so deliveries signed during
// a secret rotation pass with either secret) and get the event back, typed by its eventType. The
// signing code is the service's own (src/webhooks/webhook-signature.ts); the stock `stripe` and
// `standardwebhooks` verifiers accept the same deliveries.

export { WebhookSignatureError };

/** Header names compared without case, as Node's request.headers and fetch's Headers give them. */
export type DeliveryHeaders = Headers | Record<string, string | string[] | undefined>;

export function verifyPaperflowWebhook(rawBody: string | Buffer, headers: DeliveryHeaders, signingSecret: string, options: VerifyOptions = {}): PaperflowEvent {
  verifyPaperflowSignature(rawBody, headerOf(headers, 'x-paperflow-signature'), signingSecret, options);
  const event = JSON.parse(typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8')) as PaperflowEvent;
  // The signature covers the body only: an id header that disagrees with it was not sent by Paperflow.
  const eventId = headerOf(headers, 'x-paperflow-event-id');
  if (eventId !== undefined && eventId !== event.eventId) {
    throw new WebhookSignatureError('no-matching-signature', 'The X-Paperflow-Event-Id header does not name the signed event.');
  }
  return event;
}

function headerOf(headers: DeliveryHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(entry) ? entry[0] : entry;
}
