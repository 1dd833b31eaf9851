import { DeleteObjectCommand } from '@aws-sdk/client-s3';
import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { filesBucketNameWhenTouched, paperflowConfiguration } from './configuration.ts';
import { jsonDocumentsInFilesBucket } from '../infrastructure/json-documents.ts';
import { s3Client } from '../infrastructure/s3-client.ts';
import { sqsClient } from '../infrastructure/sqs-client.ts';
import { EventLister } from '../events/event-lister.ts';
import { EventOutbox } from '../events/event-outbox.ts';
import { EventRecorder } from '../events/event-recorder.ts';
import { ExpiredEventPurge, type EventDependents } from '../events/expired-event-purge.ts';
import { SqsEventHandOff } from '../events/sqs-event-hand-off.ts';

// Built from the function's configuration (configuration.ts); clients are shared per process.

/** The drain leaves younger outbox entries to their inline hand-off (default 30 seconds). */
export function outboxGraceMs(): number {
  return paperflowConfiguration().settings.eventOutboxGraceMs;
}

export function eventOutbox(): EventOutbox {
  const { resources } = paperflowConfiguration();
  const handOff = new SqsEventHandOff(sqsClient(), () => resources.queueUrl('webhookDelivery'));
  return new EventOutbox(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName(), handOff, { graceMs: outboxGraceMs() });
}

export function eventRecorder(): EventRecorder {
  return new EventRecorder(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName(), eventOutbox(), jsonDocumentsInFilesBucket(filesBucketNameWhenTouched()));
}

export function eventLister(): EventLister {
  return new EventLister(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName(), jsonDocumentsInFilesBucket(filesBucketNameWhenTouched()));
}

/** The purge of expired events; `dependents` removes what other modules keep per event (deliveries). */
export function expiredEventPurge(dependents: EventDependents, workspaces: { list(): Promise<{ id: string }[]> }, onFailure?: (eventId: string, error: unknown) => void): ExpiredEventPurge {
  const { resources } = paperflowConfiguration();
  return new ExpiredEventPurge(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName(), {
    workspaces,
    dependents,
    payloads: {
      delete: async (objectKey) => {
        await s3Client().send(new DeleteObjectCommand({ Bucket: resources.filesBucketName(), Key: objectKey }));
      },
    },
    onFailure,
  });
}
