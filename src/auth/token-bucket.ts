import type { RateLimit } from './api-key-store.ts';

export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * Per-key token buckets, as API Gateway usage plans apply them at the edge: each key refills at its
 * rate up to its burst, and a request spends one token.
 */
export class TokenBucketLimiter {
  private readonly buckets = new Map<string, { tokens: number; refilledAt: number }>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  take(key: string, limit: RateLimit): RateDecision {
    const now = this.now();
    const bucket = this.buckets.get(key) ?? { tokens: limit.burst, refilledAt: now };
    const elapsedSeconds = (now - bucket.refilledAt) / 1000;
    bucket.tokens = Math.min(limit.burst, bucket.tokens + elapsedSeconds * limit.requestsPerSecond);
    bucket.refilledAt = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    const secondsUntilToken = (1 - bucket.tokens) / limit.requestsPerSecond;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(secondsUntilToken)) };
  }
}
