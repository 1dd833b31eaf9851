import { S3Client } from '@aws-sdk/client-s3';
import { cachedPerEndpoint } from './client-cache.ts';
import { sdkLogger } from './logger.ts';
import { withCommandLog } from './sdk-command-log.ts';

// S3 emulators serve buckets by path rather than by virtual host; PAPERFLOW_S3_FORCE_PATH_STYLE says so.
export const s3Client = cachedPerEndpoint('S3', () => withCommandLog(new S3Client({ forcePathStyle: process.env.PAPERFLOW_S3_FORCE_PATH_STYLE === 'true', logger: sdkLogger })));
