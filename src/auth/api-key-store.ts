import type { GrantedScope } from './scopes.ts';

export interface RateLimit {
  requestsPerSecond: number;
  burst: number;
}

/** DESIGN.md defaults: 25 requests/s with a burst of 50, per key. */
export const defaultRateLimit: RateLimit = { requestsPerSecond: 25, burst: 50 };

export interface ApiKeyRecord {
  keyId: string;
  workspaceId: string;
  name: string;
  scopes: GrantedScope[];
  /** The first characters of the key, to recognise it in listings. */
  displayPrefix: string;
  rateLimit: RateLimit;
  createdAt: string;
  revokedAt?: string;
  /** Deployed only: the API Gateway API key value the authorizer returns as `usageIdentifierKey`. */
  usageIdentifierKey?: string;
}

/**
 * The API keys, found by the hash of their secret (the secret itself is never stored). The records
 * table's adapter is aws/dynamodb-api-key-store.ts.
 */
export interface ApiKeyStore {
  /** Stores a new key; a key already stored under this hash is an error, never overwritten. */
  put(record: ApiKeyRecord, secretHash: string): Promise<void>;
  findBySecretHash(secretHash: string): Promise<ApiKeyRecord | undefined>;
  listByWorkspace(workspaceId: string): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked (the first revocation's time stays); returns false when no such key exists. */
  revoke(keyId: string, revokedAt: string): Promise<boolean>;
}
