import { expect } from 'vitest';

/** The error `promise` rejects with, asserted to be an `errorType` (a promise that resolves fails the test). */
export async function rejectionOf<T extends Error>(promise: Promise<unknown>, errorType: abstract new (...args: never[]) => T): Promise<T> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(errorType);
  return error as T;
}
