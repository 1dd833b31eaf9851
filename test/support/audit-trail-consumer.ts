import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { paperflowConfiguration } from '../../src/composition/configuration.ts';

// The consumer row of test/support/added-queue-fixture.ts. For each message it records what its
// configuration (the composition root's, as the local invoker limited it to this row) answers: the
// records table and its own queue, which its row names, and the delivery queue and bucket, which it
// does not. Process-wide, so the test sees it whichever copy of the module the invoker loaded.

const registryKey = Symbol.for('paperflow.test.auditTrailConsumer');

export interface AuditTrailRecord {
  body: string;
  recordsTableName: string;
  ownQueueUrl: string;
  /** The error asking for a resource outside the row gave. */
  deliveryQueueRefusal: string;
  filesBucketRefusal: string;
}

function registry(): AuditTrailRecord[] {
  const global = globalThis as unknown as Record<symbol, AuditTrailRecord[] | undefined>;
  return (global[registryKey] ??= []);
}

export function auditTrailRecords(): readonly AuditTrailRecord[] {
  return registry();
}

const refusalOf = (lookup: () => string): string => {
  try {
    return `answered ${lookup()}`;
  } catch (error) {
    return (error as Error).message;
  }
};

export async function handler(event: SQSEvent): Promise<SQSBatchResponse> {
  const { resources } = paperflowConfiguration();
  for (const record of event.Records) {
    registry().push({
      body: record.body,
      recordsTableName: resources.recordsTableName(),
      ownQueueUrl: resources.queueUrl('auditTrail'),
      deliveryQueueRefusal: refusalOf(() => resources.queueUrl('webhookDelivery')),
      filesBucketRefusal: refusalOf(() => resources.filesBucketName()),
    });
  }
  return { batchItemFailures: [] };
}
