import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { filesBucketNameWhenTouched, paperflowConfiguration } from './configuration.ts';
import { jsonDocumentsInFilesBucket } from '../infrastructure/json-documents.ts';
import { s3Client } from '../infrastructure/s3-client.ts';
import { sqsClient } from '../infrastructure/sqs-client.ts';
import { DynamoEventLister } from '../events/aws/dynamodb-event-lister.ts';
import { DynamoEventRecords } from '../events/aws/dynamodb-event-records.ts';
import { S3EventPayloadDeletion } from '../events/aws/s3-event-payloads.ts';
import { SqsEventHandOff } from '../events/aws/sqs-event-hand-off.ts';
import type { EventLister } from '../events/event-lister.ts';
import { EventOutbox } from '../events/event-outbox.ts';
import { EventRecorder } from '../events/event-recorder.ts';
import { ExpiredEventPurge, type EventDependents } from '../events/expired-event-purge.ts';

// Built from the function's configuration (configuration.ts); clients are shared per process.

/** The drain leaves younger outbox entries to their inline hand-off (default 30 seconds). */
export function outboxGraceMs(): number {
  return paperflowConfiguration().settings.eventOutboxGraceMs;
}

function eventRecords(): DynamoEventRecords {
  return new DynamoEventRecords(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName());
}

export function eventOutbox(): EventOutbox {
  const { resources } = paperflowConfiguration();
  const handOff = new SqsEventHandOff(sqsClient(), () => resources.queueUrl('webhookDelivery'));
  return new EventOutbox(eventRecords(), handOff, { graceMs: outboxGraceMs() });
}

export function eventRecorder(): EventRecorder {
  return new EventRecorder(eventRecords(), eventOutbox(), jsonDocumentsInFilesBucket(filesBucketNameWhenTouched()));
}

export function eventLister(): EventLister {
  return new DynamoEventLister(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName(), jsonDocumentsInFilesBucket(filesBucketNameWhenTouched()));
}

/** The purge of expired events; `dependents` removes what other modules keep per event (deliveries). */
export function expiredEventPurge(dependents: EventDependents, workspaces: { list(): Promise<{ id: string }[]> }, onFailure?: (eventId: string, error: unknown) => void): ExpiredEventPurge {
  const { resources } = paperflowConfiguration();
  return new ExpiredEventPurge(eventRecords(), {
    workspaces,
    dependents,
    payloads: new S3EventPayloadDeletion(s3Client(), () => resources.filesBucketName()),
    onFailure,
  });
}
