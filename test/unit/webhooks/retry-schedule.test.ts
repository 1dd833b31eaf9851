import { describe, expect, it } from 'vitest';
import { parseRetryDelays, queuedDelay, remainingDelay, retrySchedule } from '../../../src/webhooks/retry-schedule.ts';

describe('parseRetryDelays', () => {
  it('defaults to the spec’s T+0, 1m, 3m, 7m, 15m, 31m', () => {
    const delays = parseRetryDelays(undefined);

    expect(delays).toEqual([0, 60, 120, 240, 480, 960]);
    expect(delays.map((_, index) => delays.slice(0, index + 1).reduce((sum, delay) => sum + delay, 0) / 60)).toEqual([0, 1, 3, 7, 15, 31]);
  });

  it('reads six whole seconds, spaces allowed', () => {
    expect(parseRetryDelays('0,1,1,1,1,1')).toEqual([0, 1, 1, 1, 1, 1]);
    expect(parseRetryDelays(' 0, 2 ,3,4,5,6 ')).toEqual([0, 2, 3, 4, 5, 6]);
  });

  it.each(['1,2,3', '0,1,1,1,1,1,1', '0,1,-1,1,1,1', '0,1,1.5,1,1,1', '0,1,,1,1,1', 'a,b,c,d,e,f', '0;1;1;1;1;1'])(
    'refuses %j with a message naming the variable',
    (raw) => {
      expect(() => parseRetryDelays(raw)).toThrow(/PAPERFLOW_WEBHOOK_RETRY_DELAYS must list 6 delays in whole seconds/);
    },
  );
});

describe('retrySchedule', () => {
  it('gives the delay before each attempt, 1-based', () => {
    const schedule = retrySchedule([0, 60, 120, 240, 480, 960]);

    expect([1, 2, 3, 4, 5, 6].map((attempt) => schedule.delayBeforeAttempt(attempt))).toEqual([0, 60, 120, 240, 480, 960]);
    expect(() => schedule.delayBeforeAttempt(7)).toThrow('There is no attempt 7');
  });
});

describe('two hops', () => {
  const now = new Date('2026-03-01T10:00:00.000Z');

  it('sends a delay up to 900 s as it is', () => {
    expect(queuedDelay(900, now)).toEqual({ delaySeconds: 900 });
    expect(queuedDelay(0, now)).toEqual({ delaySeconds: 0 });
  });

  it('sends a longer one as 900 s with notBefore, and the rest when the message arrives early', () => {
    const first = queuedDelay(960, now);
    expect(first).toEqual({ delaySeconds: 900, notBefore: '2026-03-01T10:16:00.000Z' });

    expect(remainingDelay(first.notBefore, new Date(now.getTime() + 900_000))).toEqual({ delaySeconds: 60, notBefore: first.notBefore });
    expect(remainingDelay(first.notBefore, new Date(now.getTime() + 900_500))).toEqual({ delaySeconds: 60, notBefore: first.notBefore });
    expect(remainingDelay(first.notBefore, new Date(now.getTime() + 960_000))).toBeUndefined();
    expect(remainingDelay(undefined, now)).toBeUndefined();
  });

  it('hops again while more than 900 s remain', () => {
    const first = queuedDelay(2000, now);

    expect(remainingDelay(first.notBefore, new Date(now.getTime() + 900_000))).toEqual({ delaySeconds: 900, notBefore: first.notBefore });
  });
});
