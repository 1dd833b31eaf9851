import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { cachedPerEndpoint } from './client-cache.ts';
import { sdkLogger } from './logger.ts';

export const dynamoDocumentClient = cachedPerEndpoint('DYNAMODB', () =>
  DynamoDBDocumentClient.from(new DynamoDBClient({ logger: sdkLogger }), { marshallOptions: { removeUndefinedValues: true } }),
);
