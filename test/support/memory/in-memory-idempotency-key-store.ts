import type { ClaimedKey, CompletedKey, IdempotencyKeyRecord, IdempotencyKeyStore } from '../../../src/platform/idempotency/idempotency-key-store.ts';
import type { IdempotencyKeyScope } from '../../../src/platform/idempotency/sealed-responses.ts';

/** The DynamoDB adapter's conditions over a Map, for unit tests of the rules without an emulator. */
export class InMemoryIdempotencyKeyStore implements IdempotencyKeyStore {
  readonly records = new Map<string, IdempotencyKeyRecord>();
  claims = 0;

  async claim(scope: IdempotencyKeyScope, claim: ClaimedKey, now: number): Promise<boolean> {
    this.claims += 1;
    const existing = this.records.get(nameOf(scope));
    const free = !existing || existing.expiresAt <= now || (existing.state === 'IN_PROGRESS' && existing.leaseExpiresAt <= now);
    if (free) this.records.set(nameOf(scope), { ...claim });
    return free;
  }

  async get(scope: IdempotencyKeyScope, now: number): Promise<IdempotencyKeyRecord | undefined> {
    const record = this.records.get(nameOf(scope));
    return record && record.expiresAt > now ? { ...record } : undefined;
  }

  async complete(scope: IdempotencyKeyScope, claimToken: string, completed: CompletedKey): Promise<boolean> {
    if (!this.heldBy(scope, claimToken)) return false;
    this.records.set(nameOf(scope), { ...completed });
    return true;
  }

  async release(scope: IdempotencyKeyScope, claimToken: string): Promise<void> {
    if (this.heldBy(scope, claimToken)) this.records.delete(nameOf(scope));
  }

  private heldBy(scope: IdempotencyKeyScope, claimToken: string): boolean {
    const record = this.records.get(nameOf(scope));
    return record?.state === 'IN_PROGRESS' && record.claimToken === claimToken;
  }
}

const nameOf = (scope: IdempotencyKeyScope) => `${scope.workspaceId}/${scope.keyDigest}`;
