import { resources } from '../../src/manifest/resources.ts';
import { triggers } from '../../src/manifest/triggers.ts';
import type { QueueResource } from '../../src/platform/resource-table.ts';
import type { QueueConsumerTrigger } from '../../src/platform/trigger-table.ts';

// What adding a queue costs: one row in the resource table and its consumer's row in the trigger
// table, nothing else. test/infra/added-queue.test.ts deploys these tables, and
// test/integration/added-queue.test.ts serves them locally.

export const auditTrailQueue: QueueResource = {
  kind: 'queue',
  name: 'auditTrail',
  environmentVariable: 'PAPERFLOW_AUDIT_TRAIL_QUEUE_URL',
  id: 'AuditTrail',
  deadLetterQueueId: 'AuditTrailDeadLetters',
  localName: 'audit-trail',
  visibilityTimeoutSeconds: 30,
  maxReceiveCount: 3,
  deadLetterAlarmDescription: 'Test: audit trail messages reached the dead-letter queue',
};

export const auditTrailConsumer: QueueConsumerTrigger = {
  kind: 'queueConsumer',
  name: 'consumeAuditTrail',
  handler: 'test/support/audit-trail-consumer.ts',
  description: 'Test consumer of the added queue',
  queue: 'auditTrail',
  batchSize: 5,
  maximumBatchingWindowSeconds: 0,
  reportBatchItemFailures: true,
  maximumConcurrency: 2,
  access: { recordsTable: 'read' },
};

export const resourcesWithAddedQueue = [...resources, auditTrailQueue];
export const triggersWithAddedConsumer = [...triggers, auditTrailConsumer];
