import type { $ZodType as ZodType } from 'zod/v4/core';

// The third table beside routes and triggers: every event type a subscription can receive, with the
// schema of its `data`. src/manifest/webhook-events.ts lists each feature's rows; the OpenAPI document
// turns them into its `webhooks` section, and the typed client's webhook helper returns these events.

export interface WebhookEventDefinition {
  eventType: string;
  summary: string;
  /** The event's `data`, as the service writes it (the rest of the envelope is common to all). */
  data: ZodType;
}
