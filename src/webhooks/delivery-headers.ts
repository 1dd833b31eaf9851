import type { WebhookSignatureHeaders } from './webhook-signature.ts';

// Pure: the headers of one delivery POST (DESIGN.md, Event subscriptions), shared by the service's
// sender and by `paperflow listen`, which forwards events to a developer's receiver as real
// deliveries would reach it.

export interface DeliveryIdentity {
  eventId: string;
  eventType: string;
  deliveryId: string;
  attempt: number;
}

export const webhookUserAgent = 'Paperflow-Webhooks/1';

export function deliveryRequestHeaders(identity: DeliveryIdentity, signatureHeaders: WebhookSignatureHeaders | Record<string, string>): Record<string, string> {
  return {
    'Content-Type': 'application/json',
    'User-Agent': webhookUserAgent,
    'X-Paperflow-Event-Id': identity.eventId,
    'X-Paperflow-Event-Type': identity.eventType,
    'X-Paperflow-Delivery-Id': identity.deliveryId,
    'X-Paperflow-Attempt': String(identity.attempt),
    ...signatureHeaders,
  };
}
