import type { IdempotencyKeyScope, SealedResponse } from './sealed-responses.ts';

// The port through which idempotent creates keep their keys (src/platform/idempotency/idempotent-requests.ts
// says how they are used); the records table's adapter is aws/dynamodb-idempotency-key-store.ts, the
// unit tests' is in test/support/memory/.

/** A key claimed by a request that is still running. */
export interface ClaimedKey {
  state: 'IN_PROGRESS';
  /** The claimant's own token: only it completes or releases the claim. */
  claimToken: string;
  /** Undefined while the claimant's streamed body is still arriving. */
  fingerprint?: string;
  /** Epoch milliseconds after which the claimant is presumed gone (its function timed out or crashed). */
  leaseExpiresAt: number;
  /** Epoch milliseconds after which the key is free again (the table's TTL removes it later). */
  expiresAt: number;
}

/** A key whose first request was answered: the answer, sealed, and what it answered. */
export interface CompletedKey {
  state: 'COMPLETED';
  fingerprint: string;
  response: SealedResponse;
  expiresAt: number;
}

export type IdempotencyKeyRecord = ClaimedKey | CompletedKey;

export interface IdempotencyKeyStore {
  /**
   * Claims the key for a request, in one conditional write: succeeds when no record exists, when the
   * existing one has expired, or when its claimant's lease ran out. Exactly one of two concurrent
   * claims succeeds.
   */
  claim(scope: IdempotencyKeyScope, claim: ClaimedKey, now: number): Promise<boolean>;
  /** The current record, read strongly consistent; undefined when there is none or it has expired. */
  get(scope: IdempotencyKeyScope, now: number): Promise<IdempotencyKeyRecord | undefined>;
  /** Records the answer, if the claim is still this token's; false when it was taken over meanwhile. */
  complete(scope: IdempotencyKeyScope, claimToken: string, completed: CompletedKey): Promise<boolean>;
  /** Frees the key, if the claim is still this token's, so a retry runs the request anew. */
  release(scope: IdempotencyKeyScope, claimToken: string): Promise<void>;
}
