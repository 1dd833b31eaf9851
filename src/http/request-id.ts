import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { headerValuesOf } from './headers.ts';

// A client may correlate its own logs by sending X-Request-Id; anything outside 1-128 printable ASCII
// characters is replaced rather than echoed, so headers and logs stay safe.
const acceptableRequestId = /^[\x21-\x7e]{1,128}$/;

/**
 * The client's id when it sent exactly one acceptable value, else undefined. Two values are refused
 * rather than picked from: Node joins repeated headers with ", " (never acceptable), API Gateway keeps
 * them apart in multiValueHeaders.
 */
export function clientRequestId(values: readonly string[]): string | undefined {
  return values.length === 1 && acceptableRequestId.test(values[0]!) ? values[0] : undefined;
}

export function generatedRequestId(): string {
  return `req_${randomUUID()}`;
}

export function resolveRequestId(clientValue: string | undefined): string {
  return clientRequestId(clientValue === undefined ? [] : [clientValue]) ?? generatedRequestId();
}

/**
 * One id per request, decided at the edge: the client's own acceptable id, else the id the edge gave
 * the request (`requestContext.requestId`: API Gateway's own deployed, the local gateway's locally), so
 * the header, the error body and the logs of a handler agree with what the edge answered and logged.
 * Only an event without one (a direct invocation) gets an id generated here.
 */
export function requestIdOf(event: Pick<APIGatewayProxyEvent, 'headers' | 'multiValueHeaders' | 'requestContext'>): string {
  return clientRequestId(headerValuesOf(event, 'x-request-id')) ?? (event.requestContext?.requestId || generatedRequestId());
}
