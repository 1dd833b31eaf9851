import { SFNClient } from '@aws-sdk/client-sfn';
import { cachedPerEndpoint } from './client-cache.ts';
import { sdkLogger } from './logger.ts';

export const sfnClient = cachedPerEndpoint('SFN', () => new SFNClient({ logger: sdkLogger }));
