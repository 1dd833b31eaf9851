import { extractionWebhookEvents } from '../extractions/webhook-events.ts';
import type { WebhookEventDefinition } from '../platform/webhook-event-table.ts';
import { runWebhookEvents } from '../workflows/webhook-events.ts';

// Every event type a subscription can receive, with its payload schema: the OpenAPI document's
// `webhooks` section and the typed client's events come from this list.
export const webhookEvents: WebhookEventDefinition[] = [...extractionWebhookEvents, ...runWebhookEvents];
