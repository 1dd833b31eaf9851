import { PassThrough, type Readable } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { DomainError } from '../platform/errors.ts';
import { idempotentReplayHeader } from '../platform/idempotency/idempotency-key.ts';
import type { IdempotentRequests } from '../platform/idempotency/idempotent-requests.ts';
import {
  BodyDigest,
  bufferedRequestFingerprint,
  fingerprintOf,
  type RequestFingerprint,
  type RequestIdentity,
} from '../platform/idempotency/request-fingerprint.ts';
import type { RecordedResponse } from '../platform/idempotency/sealed-responses.ts';
import { errorEnvelope, errorHeadersOf, httpStatusOf } from './error-responses.ts';
import { renderSuccess, type HttpResponse } from './http-handler.ts';
import { attachStreamedBody, requestBodyBuffer, streamedBodyOf } from './request-body.ts';

// The Idempotency-Key step of the shared HTTP chain, for the routes whose row sets
// `acceptsIdempotencyKey` (src/platform/idempotency/idempotent-requests.ts has the rules). It runs
// after the request was authorized and its body and query parsed: a request refused before the
// handler ran stores nothing, as in Stripe's API.

export interface IdempotentCall {
  event: APIGatewayProxyEvent;
  workspaceId: string;
  key: string;
  /** The request's media type without parameters, empty without a body. */
  mediaType: string;
  requestId: string;
}

export async function answerIdempotently(
  requests: IdempotentRequests,
  call: IdempotentCall,
  respond: () => Promise<HttpResponse>,
): Promise<APIGatewayProxyResult> {
  const fingerprint = requestFingerprintOf(call);
  const outcome = await requests.run(call.workspaceId, call.key, fingerprint, async () => {
    fingerprint.beforeRun();
    try {
      const response = await respond();
      return { status: response.status, headers: response.headers ?? {}, body: response.body };
    } catch (error) {
      // A refusal is an answer like any other (and replayed); anything else fails the request and frees the key.
      if (error instanceof DomainError) return recordedError(error);
      throw error;
    }
  });
  return rendered(outcome.response, call.requestId, outcome.replayed);
}

function recordedError(error: DomainError): RecordedResponse {
  // The request id is the answering request's, filled in when rendered: a replay names its own.
  const { requestId: _requestId, ...envelope } = errorEnvelope(error, '').error;
  return { status: httpStatusOf(error), headers: errorHeadersOf(error), body: { error: envelope } };
}

function rendered(response: RecordedResponse, requestId: string, replayed: boolean): APIGatewayProxyResult {
  const body = response.status >= 400 && isErrorEnvelope(response.body) ? withRequestId(response.body, requestId) : response.body;
  return renderSuccess({ status: response.status, headers: { ...response.headers, ...(replayed ? { [idempotentReplayHeader]: 'true' } : {}) }, body }, requestId);
}

function isErrorEnvelope(body: unknown): body is { error: Record<string, unknown> } {
  return typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'object' && body.error !== null;
}

/** The envelope in the spec's field order, naming the request that answers. */
function withRequestId(body: { error: Record<string, unknown> }, requestId: string): unknown {
  const { code, message, requestId: _recorded, ...rest } = body.error;
  return { error: { code, message, requestId, ...rest } };
}

/** A request's fingerprint, and the step that lets a streamed body be digested while its handler reads it. */
interface HttpRequestFingerprint extends RequestFingerprint {
  beforeRun(): void;
}

function requestFingerprintOf(call: IdempotentCall): HttpRequestFingerprint {
  const { event } = call;
  const identity: RequestIdentity = { method: event.httpMethod, path: event.path, mediaType: call.mediaType };
  const contentType = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
  const streamed = streamedBodyOf(event);
  if (streamed) return new StreamedRequestFingerprint(event, streamed, identity, contentType);
  return { ...bufferedRequestFingerprint(identity, contentType, requestBodyBuffer(event)), beforeRun: () => undefined };
}

/**
 * The embedded stack streams multipart uploads into the handler as they arrive (deployed, API Gateway
 * hands over whole bodies). Such a body is digested on its way: through a pass-through the handler
 * reads when the request runs, or read to its end here when it will not run.
 */
class StreamedRequestFingerprint implements HttpRequestFingerprint {
  readonly known = undefined;
  private readonly digest: BodyDigest;
  private ended: Promise<boolean> | undefined;

  constructor(
    private readonly event: APIGatewayProxyEvent,
    private readonly source: Readable,
    private readonly identity: RequestIdentity,
    contentType: string | undefined,
  ) {
    this.digest = new BodyDigest(contentType);
  }

  beforeRun(): void {
    const through = new PassThrough();
    this.observe();
    this.source.pipe(through);
    // pipe() does not pass on a client leaving mid-body: the handler's read must fail, not wait forever.
    this.source.once('close', () => {
      if (!this.source.readableEnded) through.destroy(new Error('The client closed the request before its body ended.'));
    });
    attachStreamedBody(this.event, through);
  }

  async afterRun(status: number): Promise<string | undefined> {
    if (!this.source.readableEnded) {
      this.source.unpipe();
      // Refused before the body ended: the gateway discards the rest, which nobody reads any more.
      if (status >= 300) return undefined;
      // Accepted: the handler's parser stopped at the closing boundary; the stream's end follows.
      this.source.resume();
    }
    return (await this.observe()) ? fingerprintOf(this.identity, this.digest.digest()) : undefined;
  }

  async read(): Promise<string | undefined> {
    const ended = this.observe();
    this.source.resume();
    return (await ended) ? fingerprintOf(this.identity, this.digest.digest()) : undefined;
  }

  private observe(): Promise<boolean> {
    return (this.ended ??= new Promise<boolean>((resolve) => {
      this.source.on('data', (chunk: Buffer) => this.digest.update(chunk));
      this.source.once('end', () => resolve(true));
      this.source.once('close', () => resolve(this.source.readableEnded));
      this.source.once('error', () => resolve(false));
    }));
  }
}
