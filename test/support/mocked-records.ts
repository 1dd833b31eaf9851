import { ConditionalCheckFailedException, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ExtractionRecord } from '../../src/extractions/extraction.ts';

// Shared by the unit tests that drive the records table through aws-sdk-client-mock.

/** What DynamoDB answers when a write's condition does not hold. */
export const conditionalFailure = () => new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: { httpStatusCode: 400 } });

/** A document client the mock intercepts (no endpoint is ever called). */
export const documentClient = () => DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' }));

/** A terminal (FAILED) extraction of its second generation, the subject of event and store tests. */
export const failedExtractionRecord: ExtractionRecord = {
  id: 'ext_01JZ0000000000000000000000',
  workspaceId: 'ws_a',
  status: 'FAILED',
  generation: 2,
  createdAt: '2026-01-01T10:00:00.000Z',
  updatedAt: '2026-01-01T10:00:05.000Z',
  completedAt: '2026-01-01T10:00:05.000Z',
  error: { code: 'DOCUMENT_EXTRACTION_FAILED', message: 'x' },
  labels: {},
  document: {},
  outputAvailable: false,
};
