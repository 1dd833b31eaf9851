import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { logger } from '../../infrastructure/logger.ts';
import { IdempotencyKeyInUseError, ValidationError } from '../errors.ts';
import { idempotencyKeyHeader } from './idempotency-key.ts';
import type { IdempotencyKeyStore } from './idempotency-key-store.ts';
import type { RequestFingerprint } from './request-fingerprint.ts';
import { idempotencyKeyScope, openResponse, sealResponse, type IdempotencyKeyScope, type RecordedResponse } from './sealed-responses.ts';

// How a create with an Idempotency-Key runs (README, Idempotent creates). A key moves through:
//
//   (none) --claim--> IN_PROGRESS --answered 2xx/4xx--> COMPLETED --24 h--> (none)
//                          |--answered 5xx, or failed, or body not read to its end--> (none)
//                          '--lease ran out (claimant gone)--> claimable again
//
// The claim is one conditional write, so of two concurrent requests exactly one runs; the other waits
// a little for the answer, replays it, and creates nothing. 5xx frees the key so a retry can succeed;
// 4xx is kept and replayed (Stripe's rule): the same request would be refused the same way.

export interface IdempotentRequestOptions {
  /** How long an answered key is kept (and replayed). */
  retentionMs: number;
  /** How long a claimant may run before its claim can be taken over; above any create's longest run. */
  leaseMs: number;
  /** How long a second request waits for the first's answer before it is answered 409. */
  waitMs: number;
  pollIntervalMs: number;
  now: () => number;
  sleep: (milliseconds: number) => Promise<unknown>;
}

export const defaultIdempotentRequestOptions: IdempotentRequestOptions = {
  retentionMs: 24 * 60 * 60 * 1000,
  // Deployed, an API function ends within its 29 s timeout; locally a 50 MB upload takes seconds.
  leaseMs: 2 * 60 * 1000,
  waitMs: 5_000,
  pollIntervalMs: 100,
  now: Date.now,
  sleep: (milliseconds) => sleep(milliseconds),
};

export interface IdempotentOutcome {
  response: RecordedResponse;
  /** True when this is the stored answer of an earlier request with the key. */
  replayed: boolean;
}

export class IdempotentRequests {
  private readonly options: IdempotentRequestOptions;

  constructor(
    private readonly store: IdempotencyKeyStore,
    options: Partial<IdempotentRequestOptions> = {},
  ) {
    this.options = { ...defaultIdempotentRequestOptions, ...options };
  }

  /**
   * Runs `execute` once per workspace and key: the first request runs it, a repeat of the same request
   * gets its answer replayed, a different request with the key is refused (422). `execute` answers
   * the response to record; a throw is a failure, like a 5xx, and frees the key.
   */
  async run(workspaceId: string, key: string, fingerprint: RequestFingerprint, execute: () => Promise<RecordedResponse>): Promise<IdempotentOutcome> {
    const { now } = this.options;
    const scope = idempotencyKeyScope(workspaceId, key);
    const deadline = now() + this.options.waitMs;
    for (;;) {
      const claimToken = randomUUID();
      const claimed = await this.store.claim(
        scope,
        { state: 'IN_PROGRESS', claimToken, fingerprint: fingerprint.known, leaseExpiresAt: now() + this.options.leaseMs, expiresAt: now() + this.options.retentionMs },
        now(),
      );
      if (claimed) return { response: await this.runClaimed(scope, claimToken, key, fingerprint, execute), replayed: false };

      const record = await this.store.get(scope, now());
      // Freed (a 5xx) or expired between the claim and the read: claim again.
      if (!record) continue;
      if (record.state === 'COMPLETED') {
        // Only now is a streamed body read (to compare it): this request will not run.
        const mine = await fingerprint.read();
        if (mine !== record.fingerprint) throw keyReusedError();
        return { response: openResponse(record.response, key, scope), replayed: true };
      }
      if (record.fingerprint !== undefined && fingerprint.known !== undefined && record.fingerprint !== fingerprint.known) throw keyReusedError();
      if (now() >= deadline) throw new IdempotencyKeyInUseError(1);
      await this.options.sleep(this.options.pollIntervalMs);
    }
  }

  private async runClaimed(
    scope: IdempotencyKeyScope,
    claimToken: string,
    key: string,
    fingerprint: RequestFingerprint,
    execute: () => Promise<RecordedResponse>,
  ): Promise<RecordedResponse> {
    let response: RecordedResponse;
    try {
      response = await execute();
    } catch (error) {
      await this.release(scope, claimToken);
      throw error;
    }
    if (response.status >= 500) {
      await this.release(scope, claimToken);
      return response;
    }
    // A streamed body refused before it all arrived (413 over 50 MB, 415 for an executable) cannot be
    // compared with a retry's: the key is freed, and the same request is refused the same way again.
    const completedFingerprint = await fingerprint.afterRun(response.status);
    if (completedFingerprint === undefined) {
      await this.release(scope, claimToken);
      return response;
    }
    try {
      const completed = await this.store.complete(scope, claimToken, {
        state: 'COMPLETED',
        fingerprint: completedFingerprint,
        response: sealResponse(response, key, scope),
        expiresAt: this.options.now() + this.options.retentionMs,
      });
      if (!completed) logger.warn('idempotency key claim was taken over before its request was answered', { workspaceId: scope.workspaceId });
    } catch (error) {
      // The object exists: the client gets its answer. The claim frees itself when its lease runs out.
      logger.error('idempotency key could not record its answer', { workspaceId: scope.workspaceId, error });
    }
    return response;
  }

  private async release(scope: IdempotencyKeyScope, claimToken: string): Promise<void> {
    try {
      await this.store.release(scope, claimToken);
    } catch (error) {
      // The claim then frees itself when its lease runs out.
      logger.error('idempotency key could not be released', { workspaceId: scope.workspaceId, error });
    }
  }
}

function keyReusedError(): ValidationError {
  return new ValidationError([
    {
      field: idempotencyKeyHeader,
      issue: 'was used within the last 24 hours for a different request (method, path or body); send a new key for a new request',
    },
  ]);
}
