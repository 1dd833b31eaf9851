import { dynamoDocumentClient } from '../../infrastructure/dynamodb-client.ts';
import { requiredEnvironment, resourceEnvironment } from '../../infrastructure/resource-definitions.ts';
import { DynamoDbIdempotencyKeyStore } from './aws/dynamodb-idempotency-key-store.ts';
import { IdempotentRequests } from './idempotent-requests.ts';

/** Idempotent creates over the stack's records table. Built per call: the SDK client underneath is cached. */
export function idempotentRequests(): IdempotentRequests {
  return new IdempotentRequests(new DynamoDbIdempotencyKeyStore(dynamoDocumentClient(), requiredEnvironment(resourceEnvironment.recordsTableName)));
}
