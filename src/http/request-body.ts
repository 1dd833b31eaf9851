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

export function requestBodyStream(event: APIGatewayProxyEvent): Readable {
  const streamed = streamedBodies.get(event);
  if (streamed) return streamed;
  return Readable.from(requestBodyBuffer(event));
}

export function requestBodyBuffer(event: APIGatewayProxyEvent): Buffer {
  if (event.body === null || event.body === undefined) return Buffer.alloc(0);
  return Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
}
