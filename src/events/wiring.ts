import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment, secondsFromEnvironment } from '../infrastructure/resource-definitions.ts';
import { jsonDocumentsInFilesBucket } from '../infrastructure/json-documents.ts';
import { s3Client } from '../infrastructure/s3-client.ts';
import { sqsClient } from '../infrastructure/sqs-client.ts';
import { queueUrlEnvironment } from '../platform/resource-access.ts';
import { DynamoEventLister } from './aws/dynamodb-event-lister.ts';
import { DynamoEventRecords } from './aws/dynamodb-event-records.ts';
import { S3EventPayloadDeletion } from './aws/s3-event-payloads.ts';
import { SqsEventHandOff } from './aws/sqs-event-hand-off.ts';
import type { EventLister } from './event-lister.ts';
import { defaultOutboxGraceMs, EventOutbox } from './event-outbox.ts';
import { EventRecorder } from './event-recorder.ts';
import { ExpiredEventPurge, type EventDependents } from './expired-event-purge.ts';

// Built from the environment the stack (deployed or local) sets; clients are shared per process.

/** The drain leaves younger outbox entries to their inline hand-off (default 30 seconds). */
export function outboxGraceMs(): number {
  return secondsFromEnvironment('PAPERFLOW_EVENT_OUTBOX_GRACE_SECONDS', defaultOutboxGraceMs / 1000) * 1000;
}

function eventRecords(): DynamoEventRecords {
  return new DynamoEventRecords(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName));
}

export function eventOutbox(): EventOutbox {
  const handOff = new SqsEventHandOff(sqsClient(), () => requiredEnvironment(queueUrlEnvironment.webhookDelivery));
  return new EventOutbox(eventRecords(), handOff, { graceMs: outboxGraceMs() });
}

export function eventRecorder(): EventRecorder {
  return new EventRecorder(eventRecords(), eventOutbox(), jsonDocumentsInFilesBucket());
}

export function eventLister(): EventLister {
  return new DynamoEventLister(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName), jsonDocumentsInFilesBucket());
}

/** The purge of expired events; `dependents` removes what other modules keep per event (deliveries). */
export function expiredEventPurge(dependents: EventDependents, workspaces: { list(): Promise<{ id: string }[]> }, onFailure?: (eventId: string, error: unknown) => void): ExpiredEventPurge {
  const bucketName = requiredEnvironment(resourceEnvironment.filesBucketName);
  return new ExpiredEventPurge(eventRecords(), {
    workspaces,
    dependents,
    payloads: new S3EventPayloadDeletion(s3Client(), () => bucketName),
    onFailure,
  });
}
