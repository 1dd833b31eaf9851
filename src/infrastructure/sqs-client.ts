import { SQSClient } from '@aws-sdk/client-sqs';
import { cachedPerEndpoint } from './client-cache.ts';

export const sqsClient = cachedPerEndpoint('SQS', () => new SQSClient({}));
