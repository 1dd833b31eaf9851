import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { cachedPerEndpoint } from './client-cache.ts';
import { sdkLogger } from './logger.ts';
import { withCommandLog } from './sdk-command-log.ts';

export const dynamoDocumentClient = cachedPerEndpoint('DYNAMODB', () =>
  DynamoDBDocumentClient.from(withCommandLog(new DynamoDBClient({ logger: sdkLogger })), { marshallOptions: { removeUndefinedValues: true } }),
);
