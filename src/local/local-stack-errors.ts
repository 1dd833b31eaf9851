/**
 * Why the local stack could not start, in words an operator can act on (a data folder in use, a port
 * taken, a malformed bootstrap key). `npm start` prints the message alone, without a stack trace.
 */
export class LocalStackStartError extends Error {
  override name = 'LocalStackStartError';
}
