import { webhookDeliveryQueue } from '../infrastructure/resource-definitions.ts';
import type { QueueConsumerTrigger, ScheduleTrigger } from '../platform/trigger-table.ts';

/**
 * The delivery queue's consumer: fan-outs of recorded events and delivery attempts (docs/webhooks.md).
 * A batch's records run together, each POST bounded by the webhook timeout (10 s by default), so a
 * batch ends well inside the function timeout; the queue's visibility timeout is at least that.
 */
export const webhookDeliveryConsumer: QueueConsumerTrigger = {
  kind: 'queueConsumer',
  name: 'processWebhookDeliveries',
  handler: 'functions/webhooks/process-webhook-deliveries.ts',
  description: 'Fans recorded events out to subscriptions and sends webhook delivery attempts',
  queue: 'webhookDelivery',
  batchSize: 10,
  // No batching window: a message is handed over as soon as it arrives, so the first attempt follows
  // the terminal state within a few hundred milliseconds (two queue hops: the fan-out, the attempt).
  maximumBatchingWindowSeconds: 0,
  reportBatchItemFailures: true,
  timeoutSeconds: webhookDeliveryQueue.consumerTimeoutSeconds,
  // Table: deliveries, attempts, subscriptions, events; bucket: large event data; queue: next attempts;
  // the run machine's task tokens: the recorded-event listeners resume document_insights steps.
  access: {
    recordsTable: 'readWrite',
    filesBucket: 'read',
    queues: { webhookDelivery: 'send' },
    signingKey: 'decrypt',
    stateMachines: { workflowRun: 'callback' },
  },
};

/**
 * Releases held attempts of resumed subscriptions once more after a grace period: the recovery of a
 * resume whose inline release never ran (docs/webhooks.md, Resume).
 */
export const heldDeliverySweeper: ScheduleTrigger = {
  kind: 'schedule',
  name: 'releaseHeldDeliveries',
  handler: 'functions/webhooks/release-held-deliveries.ts',
  description: 'Releases held webhook attempts of resumed subscriptions',
  everyMinutes: 1,
  localInterval: { environmentVariable: 'PAPERFLOW_HELD_RELEASE_INTERVAL_SECONDS', defaultSeconds: 60 },
  access: { recordsTable: 'readWrite', queues: { webhookDelivery: 'send' } },
};
