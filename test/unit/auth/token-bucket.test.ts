import { describe, expect, it } from 'vitest';
import { TokenBucketLimiter } from '../../../src/auth/token-bucket.ts';

describe('token bucket', () => {
  it('allows the burst, then refuses with a Retry-After of at least one second', () => {
    let now = 0;
    const limiter = new TokenBucketLimiter(() => now);
    const limit = { requestsPerSecond: 2, burst: 3 };

    const decisions = Array.from({ length: 4 }, () => limiter.take('key', limit));

    expect(decisions.slice(0, 3).every((decision) => decision.allowed)).toBe(true);
    expect(decisions[3]).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it('refills at the key rate and keeps keys apart', () => {
    let now = 0;
    const limiter = new TokenBucketLimiter(() => now);
    const limit = { requestsPerSecond: 1, burst: 1 };
    limiter.take('a', limit);

    expect(limiter.take('a', limit).allowed).toBe(false);
    expect(limiter.take('b', limit).allowed).toBe(true);
    now = 1000;
    expect(limiter.take('a', limit).allowed).toBe(true);
  });

  it('computes Retry-After from the refill rate', () => {
    const limiter = new TokenBucketLimiter(() => 0);
    const slow = { requestsPerSecond: 0.2, burst: 1 };
    limiter.take('k', slow);

    expect(limiter.take('k', slow)).toEqual({ allowed: false, retryAfterSeconds: 5 });
  });
});
