import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment, secondsFromEnvironment } from '../infrastructure/resource-definitions.ts';
import { jsonDocumentsInFilesBucket } from '../infrastructure/json-documents.ts';
import { s3Client } from '../infrastructure/s3-client.ts';
import { sqsClient } from '../infrastructure/sqs-client.ts';
import { queueUrlEnvironment } from '../platform/resource-access.ts';
import { EventLister } from './event-lister.ts';
import { defaultOutboxGraceMs, EventOutbox } from './event-outbox.ts';
import { EventRecorder } from './event-recorder.ts';
import { ExpiredEventPurge, type EventDependents } from './expired-event-purge.ts';
import { SqsEventHandOff } from './sqs-event-hand-off.ts';

// Built from the environment the stack (deployed or local) sets; clients are shared per process.

/** The drain leaves younger outbox entries to their inline hand-off (default 30 seconds). */
export function outboxGraceMs(): number {
  return secondsFromEnvironment('PAPERFLOW_EVENT_OUTBOX_GRACE_SECONDS', defaultOutboxGraceMs / 1000) * 1000;
}

export function eventOutbox(): EventOutbox {
  const handOff = new SqsEventHandOff(sqsClient(), () => requiredEnvironment(queueUrlEnvironment.webhookDelivery));
  return new EventOutbox(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName), handOff, { graceMs: outboxGraceMs() });
}

export function eventRecorder(): EventRecorder {
  return new EventRecorder(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName), eventOutbox(), jsonDocumentsInFilesBucket());
}

export function eventLister(): EventLister {
  return new EventLister(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName), jsonDocumentsInFilesBucket());
}

/** The purge of expired events; `dependents` removes what other modules keep per event (deliveries). */
export function expiredEventPurge(dependents: EventDependents, workspaces: { list(): Promise<{ id: string }[]> }, onFailure?: (eventId: string, error: unknown) => void): ExpiredEventPurge {
  const bucketName = requiredEnvironment(resourceEnvironment.filesBucketName);
  return new ExpiredEventPurge(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName), {
    workspaces,
    dependents,
    payloads: {
      delete: async (objectKey) => {
        await s3Client().send(new DeleteObjectCommand({ Bucket: bucketName, Key: objectKey }));
      },
    },
    onFailure,
  });
}
