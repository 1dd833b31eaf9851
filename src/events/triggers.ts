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
