import { Readable } from 'node:stream';
import type { APIGatewayProxyEvent } from 'aws-lambda';

// API Gateway hands a Lambda the whole body (at most 10 MB) as a string. The local gateway serves
// multipart uploads up to the spec's 50 MB, so it registers the live request stream for the event
// instead of buffering it; handlers read both the same way, through requestBodyStream().
const streamedBodies = new WeakMap<APIGatewayProxyEvent, Readable>();

export function attachStreamedBody(event: APIGatewayProxyEvent, body: Readable): void {
  streamedBodies.set(event, body);
}

export function hasStreamedBody(event: APIGatewayProxyEvent): boolean {
  return streamedBodies.has(event);
}

/** The live request stream of a streamed body, undefined for a buffered one. */
export function streamedBodyOf(event: APIGatewayProxyEvent): Readable | undefined {
  return streamedBodies.get(event);
}

/**
 * The client closed the connection before its streamed body ended. Only the local gateway streams
 * bodies; deployed, API Gateway invokes a handler with a whole body or not at all.
 */
export function clientAbandonedBody(event: APIGatewayProxyEvent): boolean {
  const streamed = streamedBodies.get(event);
  return streamed !== undefined && streamed.destroyed && !streamed.readableEnded;
}

/** A request body read as a stream, with its length when known. */
export interface StreamedRequestBody {
  stream: Readable;
  /** The Content-Length the client declared for a live stream, the length of a buffered body. */
  declaredBodyBytes?: number;
}

export function requestBodyStream(event: APIGatewayProxyEvent): StreamedRequestBody {
  const streamed = streamedBodies.get(event);
  if (streamed) return { stream: streamed, declaredBodyBytes: declaredContentLength(event) };
  const buffered = requestBodyBuffer(event);
  return { stream: Readable.from(buffered), declaredBodyBytes: buffered.length };
}

function declaredContentLength(event: APIGatewayProxyEvent): number | undefined {
  const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-length')?.[1];
  return header !== undefined && /^\d{1,15}$/.test(header) ? Number(header) : undefined;
}

export function requestBodyBuffer(event: APIGatewayProxyEvent): Buffer {
  if (event.body === null || event.body === undefined) return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}
