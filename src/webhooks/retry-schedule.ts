import { webhookDeliveryQueue } from '../infrastructure/resource-definitions.ts';

/** Automatic deliveries make at most six attempts; a manual resend makes one (spec, Limits). */
export const automaticMaxAttempts = 6;
export const manualMaxAttempts = 1;

/** The spec's T+0, 1m, 3m, 7m, 15m, 31m: the delay before each attempt, in seconds. */
export const defaultRetryDelaysSeconds = [0, 60, 120, 240, 480, 960] as const;

export const retryDelaysVariable = 'PAPERFLOW_WEBHOOK_RETRY_DELAYS';

export interface RetrySchedule {
  /** Seconds to wait before attempt `attempt` (1-based). */
  delayBeforeAttempt(attempt: number): number;
}

/**
 * `PAPERFLOW_WEBHOOK_RETRY_DELAYS`: the six delays in seconds, comma-separated (`0,1,1,1,1,1` in
 * tests). Anything else stops the consumer at start-up with a message saying what is wrong, rather
 * than retrying on a schedule nobody asked for.
 */
export function parseRetryDelays(raw: string | undefined): number[] {
  if (raw === undefined || raw.trim() === '') return [...defaultRetryDelaysSeconds];
  const parts = raw.split(',').map((part) => part.trim());
  const malformed = parts.filter((part) => !/^\d+$/.test(part) || !Number.isSafeInteger(Number(part)));
  if (parts.length !== automaticMaxAttempts || malformed.length > 0) {
    throw new Error(
      `${retryDelaysVariable} must list ${automaticMaxAttempts} delays in whole seconds of 0 or more, comma-separated ` +
        `(default ${defaultRetryDelaysSeconds.join(',')}); got "${raw}".`,
    );
  }
  return parts.map(Number);
}

export function retrySchedule(delaysSeconds: readonly number[] = defaultRetryDelaysSeconds): RetrySchedule {
  return {
    delayBeforeAttempt(attempt) {
      const delay = delaysSeconds[attempt - 1];
      if (delay === undefined) throw new Error(`There is no attempt ${attempt}: the schedule has ${delaysSeconds.length}.`);
      return delay;
    },
  };
}

/** How one attempt message is put on the queue: SQS takes at most 900 s of delay per message. */
export interface QueuedDelay {
  delaySeconds: number;
  /** Set when the wait is longer than one hop: a consumer receiving the message earlier sends it again. */
  notBefore?: string;
}

/**
 * A wait above SQS's maximum is reached in hops: the message is delayed the maximum and carries
 * `notBefore`; `remainingDelay` then gives the next hop when it arrives early.
 */
export function queuedDelay(delaySeconds: number, now: Date, maximumSeconds = webhookDeliveryQueue.maximumDelaySeconds): QueuedDelay {
  if (delaySeconds <= maximumSeconds) return { delaySeconds };
  return { delaySeconds: maximumSeconds, notBefore: new Date(now.getTime() + delaySeconds * 1000).toISOString() };
}

/** The next hop of a message received at `now`, or undefined when it is due. */
export function remainingDelay(notBefore: string | undefined, now: Date, maximumSeconds = webhookDeliveryQueue.maximumDelaySeconds): QueuedDelay | undefined {
  if (notBefore === undefined) return undefined;
  const remainingMs = Date.parse(notBefore) - now.getTime();
  if (!(remainingMs > 0)) return undefined;
  const seconds = Math.ceil(remainingMs / 1000);
  return seconds <= maximumSeconds ? { delaySeconds: seconds, notBefore } : { delaySeconds: maximumSeconds, notBefore };
}
