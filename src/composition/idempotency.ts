import { dynamoDocumentClient } from '../infrastructure/dynamodb-client.ts';
import { paperflowConfiguration } from './configuration.ts';
import { DynamoDbIdempotencyKeyStore } from '../platform/idempotency/aws/dynamodb-idempotency-key-store.ts';
import { IdempotentRequests } from '../platform/idempotency/idempotent-requests.ts';

/** Idempotent creates over the stack's records table. Built per call: the SDK client underneath is cached. */
export function idempotentRequests(): IdempotentRequests {
  return new IdempotentRequests(new DynamoDbIdempotencyKeyStore(dynamoDocumentClient(), paperflowConfiguration().resources.recordsTableName()));
}
