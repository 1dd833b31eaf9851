import { InvalidRequestError } from '../errors.ts';

// The Idempotency-Key header of a create (README, Idempotent creates): a client's own name for one
// intended operation, as Stripe's API and the IETF Idempotency-Key draft take it.

export const idempotencyKeyHeader = 'Idempotency-Key';

export const maximumIdempotencyKeyLength = 255;

/** Marks a replayed answer (an extension; the IETF draft names no such header). */
export const idempotentReplayHeader = 'Idempotent-Replayed';

/** 1-255 printable ASCII characters; a space may stand inside but not first or last (HTTP trims those). */
export const idempotencyKeyPattern = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/;

/** For the OpenAPI document's description of the header (src/http/openapi-document.ts reads it). */
export const idempotencyKeyDescription =
  `Extension: 1-${maximumIdempotencyKeyLength} printable ASCII characters, per workspace; use a fresh random value (a UUID) per operation. ` +
  'The same key with the same request (method, path and body; for a form, its parts) within 24 hours answers the first response again, ' +
  'status and body, with Idempotent-Replayed: true, and creates nothing. The same key with a different request is 422 VALIDATION_FAILED ' +
  '(details name Idempotency-Key); while the first request with the key is still running, a second one waits up to a few seconds for its ' +
  'response, then gets 409 CONFLICT with retryable true and Retry-After. A first request answered 5xx frees the key; one answered 4xx is replayed. ' +
  'A malformed key, or the header sent twice, is 400 INVALID_REQUEST.';

/**
 * The key a request names, undefined when it sends none. `values` are the header's values as the
 * gateway kept them: two are refused rather than picked from (which one was meant is not ours to guess).
 */
export function idempotencyKeyOf(values: readonly string[]): string | undefined {
  if (values.length === 0) return undefined;
  if (values.length > 1) throw new InvalidRequestError(`Send the ${idempotencyKeyHeader} header once; it was sent ${values.length} times.`);
  const key = values[0]!;
  if (!idempotencyKeyPattern.test(key)) {
    throw new InvalidRequestError(
      `The ${idempotencyKeyHeader} header must be 1-${maximumIdempotencyKeyLength} printable ASCII characters, not starting or ending with a space.`,
    );
  }
  return key;
}
