import { DownstreamError } from './errors.ts';
import { logger } from '../infrastructure/logger.ts';

/**
 * Runs one call to S3 or DynamoDB. A failure the service reported, or a network error on the way to
 * it, becomes a retryable 502 with a generic message; the cause goes to the log only. Anything else is
 * our own bug and stays what it is, so the error renderer answers a generic 500.
 */
export async function callDownstream<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isDownstreamFailure(error)) throw error;
    logger.error('downstream call failed', { operation, error });
    throw new DownstreamError();
  }
}

export function isDownstreamFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  // SDK service errors carry $metadata; socket and DNS failures carry a system error code.
  return '$metadata' in error || typeof (error as { code?: unknown }).code === 'string' || (error as Error).name === 'TimeoutError';
}
