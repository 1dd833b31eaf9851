import type { ApiKeyRecord, ApiKeyStore } from '../../../src/auth/api-key-store.ts';

/** The DynamoDB adapter's rules over a Map keyed by the secret's hash, for unit tests without an emulator. */
export class InMemoryApiKeyStore implements ApiKeyStore {
  /** What is stored, by secret hash: a test can look at it as it would at the table. */
  readonly keysByHash = new Map<string, ApiKeyRecord>();
  reads = 0;

  async put(record: ApiKeyRecord, secretHash: string): Promise<void> {
    // The adapter's condition (attribute_not_exists(pk)): a key is never overwritten.
    if (this.keysByHash.has(secretHash)) throw new Error(`An API key is already stored under ${secretHash}.`);
    this.keysByHash.set(secretHash, structuredClone(record));
  }

  async findBySecretHash(secretHash: string): Promise<ApiKeyRecord | undefined> {
    this.reads += 1;
    const record = this.keysByHash.get(secretHash);
    return record ? structuredClone(record) : undefined;
  }

  async listByWorkspace(workspaceId: string): Promise<ApiKeyRecord[]> {
    return [...this.keysByHash.values()]
      .filter((record) => record.workspaceId === workspaceId)
      .sort((a, b) => `${a.createdAt}#${a.keyId}`.localeCompare(`${b.createdAt}#${b.keyId}`))
      .map((record) => structuredClone(record));
  }

  async revoke(keyId: string, revokedAt: string): Promise<boolean> {
    const record = [...this.keysByHash.values()].find((candidate) => candidate.keyId === keyId);
    if (!record) return false;
    record.revokedAt ??= revokedAt;
    return true;
  }
}
