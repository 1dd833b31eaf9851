import { SFNClient } from '@aws-sdk/client-sfn';
import { cachedPerEndpoint } from './client-cache.ts';
import { sdkLogger } from './logger.ts';
import { withCommandLog } from './sdk-command-log.ts';

export const sfnClient = cachedPerEndpoint('SFN', () => withCommandLog(new SFNClient({ logger: sdkLogger })));
