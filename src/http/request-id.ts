import { randomUUID } from 'node:crypto';

// A client may correlate its own logs by sending X-Request-Id; anything outside 1-128 printable ASCII
// characters is replaced rather than echoed, so headers and logs stay safe.
const acceptableRequestId = /^[\x21-\x7e]{1,128}$/;

export function resolveRequestId(clientValue: string | undefined): string {
  return clientValue !== undefined && acceptableRequestId.test(clientValue) ? clientValue : `req_${randomUUID()}`;
}
