import type { ScheduleTrigger } from '../platform/trigger-table.ts';

/** Hands off recorded events whose inline hand-off never happened (docs/events.md, the outbox). */
export const eventOutboxDrain: ScheduleTrigger = {
  kind: 'schedule',
  name: 'drainEventOutbox',
  handler: 'functions/events/drain-event-outbox.ts',
  description: 'Hands recorded events left in the outbox to webhook delivery',
  everyMinutes: 1,
  localInterval: { environmentVariable: 'PAPERFLOW_EVENT_OUTBOX_DRAIN_INTERVAL_SECONDS', defaultSeconds: 60 },
  access: { recordsTable: 'readWrite', queues: { webhookDelivery: 'send' } },
};

/**
 * Deletes events past their 90 days, with their deliveries, attempts and large payloads (docs/events.md,
 * Retention): locally the TTL dynalite lacks; deployed a harmless second pass behind DynamoDB TTL.
 */
export const expiredEventPurge: ScheduleTrigger = {
  kind: 'schedule',
  name: 'purgeExpiredEvents',
  handler: 'functions/events/purge-expired-events.ts',
  description: 'Deletes expired events with their deliveries, attempts and payload objects',
  everyMinutes: 30,
  localInterval: { environmentVariable: 'PAPERFLOW_EVENT_PURGE_INTERVAL_SECONDS', defaultSeconds: 3600 },
  access: { recordsTable: 'readWrite', filesBucket: 'readWriteDelete' },
  timeoutSeconds: 300,
};
