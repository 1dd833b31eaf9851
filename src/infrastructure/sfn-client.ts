import { SFNClient } from '@aws-sdk/client-sfn';
import { cachedPerEndpoint } from './client-cache.ts';

export const sfnClient = cachedPerEndpoint('SFN', () => new SFNClient({}));
