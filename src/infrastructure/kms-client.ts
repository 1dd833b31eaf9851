import { KMSClient } from '@aws-sdk/client-kms';
import { cachedPerEndpoint } from './client-cache.ts';

export const kmsClient = cachedPerEndpoint('KMS', () => new KMSClient({}));
