import { filesBucket, recordsTable, webhookDeliveryQueue } from '../infrastructure/resource-definitions.ts';
import type { ResourceDefinition } from '../platform/resource-table.ts';

// The resource table: every table, bucket, queue, state machine and key of the stack, one row each
// (types in src/platform/resource-table.ts). lib/ deploys them and grants each function what its row
// names, src/local provisions them on the emulators, and src/composition reads the variables a row
// names. A new queue is one row here plus its consumer's trigger row (src/manifest/triggers.ts).

export const resources: ResourceDefinition[] = [
  { kind: 'table', name: 'recordsTable', environmentVariable: 'PAPERFLOW_TABLE_NAME', ...recordsTable },
  {
    kind: 'bucket',
    name: 'filesBucket',
    environmentVariable: 'PAPERFLOW_BUCKET_NAME',
    id: filesBucket.id,
    prefixes: [
      { prefix: filesBucket.stagedObjectPrefix, ruleId: 'ExpireStagedFiles', expirationDays: filesBucket.stagedObjectExpirationDays, abortIncompleteUploadsAfterDays: 1 },
      { prefix: filesBucket.eventPayloadPrefix, ruleId: 'ExpireEventPayloads', expirationDays: filesBucket.eventPayloadExpirationDays },
      // Kept for as long as their record: removed with it, never by age.
      { prefix: filesBucket.extractionOutputPrefix, ruleId: 'ExtractionOutputs' },
      { prefix: filesBucket.workflowRunPrefix, ruleId: 'WorkflowRunValues' },
    ],
    corsRules: filesBucket.corsRules,
  },
  {
    kind: 'queue',
    name: 'webhookDelivery',
    environmentVariable: 'PAPERFLOW_DELIVERY_QUEUE_URL',
    id: webhookDeliveryQueue.id,
    deadLetterQueueId: webhookDeliveryQueue.deadLetterQueueId,
    localName: 'webhook-deliveries',
    visibilityTimeoutSeconds: webhookDeliveryQueue.visibilityTimeoutSeconds,
    maxReceiveCount: webhookDeliveryQueue.maxReceiveCount,
    localVisibilityTimeoutVariable: 'PAPERFLOW_DELIVERY_QUEUE_VISIBILITY_TIMEOUT_SECONDS',
    deadLetterAlarmDescription: 'Paperflow: webhook delivery messages reached the dead-letter queue (docs/webhooks.md, Delivery protocol 7)',
  },
  { kind: 'stateMachine', name: 'extraction', environmentVariable: 'PAPERFLOW_EXTRACTION_STATE_MACHINE_ARN', definitionFile: 'statemachines/extraction.asl.json' },
  { kind: 'stateMachine', name: 'workflowRun', environmentVariable: 'PAPERFLOW_WORKFLOW_RUN_STATE_MACHINE_ARN', definitionFile: 'statemachines/workflow-run.asl.json' },
  {
    kind: 'key',
    name: 'signingKey',
    environmentVariable: 'PAPERFLOW_SIGNING_KEY_ID',
    id: 'WebhookSigningSecretsKey',
    description: 'Paperflow: encrypts the data keys of webhook signing secrets',
  },
];
