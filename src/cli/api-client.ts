import { randomUUID } from 'node:crypto';
import { bodyOf, type SuccessBody, type TypedCallResult } from '../client/api-answers.ts';
import { createPaperflowClient, type PaperflowClient } from '../client/paperflow-client.ts';
import type { ApiConnection } from './cli-configuration.ts';
import { ApiUnreachableError } from './cli-errors.ts';
import type { MultipartBody } from './multipart-body.ts';

// The public API through the typed client (src/client), as any user of it reaches the API, with what a
// command line adds around each call. A 429 is answered at the edge before the request reaches the
// service, so it is safe to send again, creations included: after `Retry-After` seconds (spec, Retry
// rules), a few times. A create is sent with an Idempotency-Key (the service's extension, README
// "Idempotent creates"), the same on every try of it, so a create whose answer was lost (the
// connection broke after it was sent) is sent again and creates nothing twice. Each try calls the
// typed client afresh, so a streamed upload is streamed again from its start.

/** The headers a create sends on every try of it. */
export type CreateHeaders = { 'Idempotency-Key': string };

export interface ApiClientOptions {
  /** How many 429s in a row are waited out before the last one is reported (default 5). */
  rateLimitRetries?: number;
  /** How many times a create is sent again after its connection failed (default 2). */
  connectionRetries?: number;
  sleep?: (milliseconds: number) => Promise<void>;
}

const maximumRetryAfterSeconds = 60;

export class PaperflowApiClient {
  private readonly typed: PaperflowClient;
  private readonly rateLimitRetries: number;
  private readonly connectionRetries: number;
  private readonly sleep: (milliseconds: number) => Promise<void>;

  constructor(
    private readonly connection: ApiConnection,
    options: ApiClientOptions = {},
  ) {
    this.typed = createPaperflowClient({ apiUrl: connection.apiUrl, apiKey: connection.apiKey });
    this.rateLimitRetries = options.rateLimitRetries ?? 5;
    this.connectionRetries = options.connectionRetries ?? 2;
    this.sleep = options.sleep ?? ((milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds)));
  }

  get apiUrl(): string {
    return this.connection.apiUrl;
  }

  /** A request that creates nothing: its success body, or an ApiError. Sent again only after a 429. */
  call<Result extends TypedCallResult>(send: (api: PaperflowClient) => Promise<Result>): Promise<SuccessBody<Result>> {
    return this.tries(() => send(this.typed), false);
  }

  /** A create: `send` puts `headers` (the Idempotency-Key) on its request; sent again after a 429 or a broken connection. */
  create<Result extends TypedCallResult>(send: (api: PaperflowClient, headers: CreateHeaders) => Promise<Result>): Promise<SuccessBody<Result>> {
    const headers = { 'Idempotency-Key': randomUUID() };
    return this.tries(() => send(this.typed, headers), true);
  }

  private async tries<Result extends TypedCallResult>(send: () => Promise<Result>, safeToResend: boolean): Promise<SuccessBody<Result>> {
    for (let attempt = 0, connectionFailures = 0; ; attempt++) {
      let result: Result;
      try {
        result = await send();
      } catch (error) {
        const unreachable = this.unreachable(error);
        // Only a create carries a key that makes sending it again safe.
        if (!safeToResend || connectionFailures >= this.connectionRetries) throw unreachable;
        connectionFailures += 1;
        await this.sleep(1000);
        continue;
      }
      if (result.response.status === 429 && attempt < this.rateLimitRetries) {
        await this.sleep(retryAfterMilliseconds(result.response.headers.get('retry-after')));
        continue;
      }
      return bodyOf(result);
    }
  }

  private unreachable(error: unknown): ApiUnreachableError {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    return new ApiUnreachableError(`Cannot reach ${this.connection.apiUrl}: ${cause?.code ?? cause?.message ?? (error as Error).message}.`);
  }
}

/**
 * What a typed call takes to send `multipart` as its body: streamed with its Content-Length (a fresh
 * stream on each try), `onProgress` told the bytes sent so far. The operation documents its form as an
 * object of parts; the bytes sent are the stream `bodySerializer` returns, so the object given as the
 * body is only a placeholder (openapi-fetch serializes a body that is there).
 */
export function multipartRequest(multipart: MultipartBody, onProgress?: (sentBytes: number, totalBytes: number) => void) {
  return {
    body: {} as never,
    bodySerializer: () => multipart.stream((sent) => onProgress?.(sent, multipart.contentLength)),
    headers: { 'Content-Type': multipart.contentType, 'Content-Length': String(multipart.contentLength) },
    // What fetch requires of a streamed request body.
    duplex: 'half',
  } as const;
}

function retryAfterMilliseconds(header: string | null): number {
  const seconds = Number(header);
  // A missing or unreadable Retry-After still waits a moment rather than hammering the edge.
  return (Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, maximumRetryAfterSeconds) : 1) * 1000;
}
