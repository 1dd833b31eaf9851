import { SQSClient } from '@aws-sdk/client-sqs';
import { cachedPerEndpoint } from './client-cache.ts';
import { sdkLogger } from './logger.ts';
import { withCommandLog } from './sdk-command-log.ts';

// Requests go to the configured SQS endpoint, never to a host taken from a queue URL: emulators
// mint queue URLs on hostnames that need not resolve, and in AWS the two agree anyway.
export const sqsClient = cachedPerEndpoint('SQS', () => withCommandLog(new SQSClient({ useQueueUrlAsEndpoint: false, logger: sdkLogger })));
