import { randomUUID } from 'node:crypto';
import type { ApiConnection } from './cli-configuration.ts';
import { ApiError, ApiUnreachableError, type ApiErrorDetail } from './cli-errors.ts';
import type { MultipartBody } from './multipart-body.ts';

// The public API over HTTP, as any client reaches it: the base URL and key of the configuration, JSON
// in and out, the error envelope turned into an ApiError. A 429 is answered at the edge before the
// request reaches the service, so it is safe to send again, creations included: after `Retry-After`
// seconds (spec, Retry rules), a few times. A create is sent with an Idempotency-Key (the service's
// extension, README "Idempotent creates"), the same on every try of it, so a create whose answer was
// lost (the connection broke after it was sent) is sent again and creates nothing twice.

export type QueryValue = string | number | undefined;

export interface ApiRequest {
  method?: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** Appended to the base URL: `/document-insights/extractions`. */
  path: string;
  query?: Record<string, QueryValue>;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as multipart/form-data, streamed, `onUploadProgress` told the bytes sent so far. */
  multipart?: MultipartBody;
  onUploadProgress?: (sentBytes: number, totalBytes: number) => void;
  /** A create: sent with one Idempotency-Key on every try, and tried again when the connection fails. */
  create?: boolean;
}

export interface ApiResponse<Body> {
  status: number;
  body: Body;
  requestId: string | undefined;
}

export interface ApiClientOptions {
  /** How many 429s in a row are waited out before the last one is reported (default 5). */
  rateLimitRetries?: number;
  /** How many times a create is sent again after its connection failed (default 2). */
  connectionRetries?: number;
  sleep?: (milliseconds: number) => Promise<void>;
}

const maximumRetryAfterSeconds = 60;

export class PaperflowApiClient {
  private readonly rateLimitRetries: number;
  private readonly connectionRetries: number;
  private readonly sleep: (milliseconds: number) => Promise<void>;

  constructor(
    private readonly connection: ApiConnection,
    options: ApiClientOptions = {},
  ) {
    this.rateLimitRetries = options.rateLimitRetries ?? 5;
    this.connectionRetries = options.connectionRetries ?? 2;
    this.sleep = options.sleep ?? ((milliseconds) => new Promise((resolve) => setTimeout(resolve, milliseconds)));
  }

  get apiUrl(): string {
    return this.connection.apiUrl;
  }

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  async request<Body = any>(request: ApiRequest): Promise<ApiResponse<Body>> {
    const idempotencyKey = request.create ? randomUUID() : undefined;
    for (let attempt = 0, connectionFailures = 0; ; attempt++) {
      let response: Response;
      try {
        response = await this.send(request, idempotencyKey);
      } catch (error) {
        // Only a create carries a key that makes sending it again safe.
        if (!(error instanceof ApiUnreachableError) || idempotencyKey === undefined || connectionFailures >= this.connectionRetries) throw error;
        connectionFailures += 1;
        await this.sleep(1000);
        continue;
      }
      if (response.status === 429 && attempt < this.rateLimitRetries) {
        await response.body?.cancel();
        await this.sleep(retryAfterMilliseconds(response.headers.get('retry-after')));
        continue;
      }
      const requestId = response.headers.get('x-request-id') ?? undefined;
      const text = await response.text();
      if (!response.ok) throw errorOf(response.status, text, requestId);
      return { status: response.status, body: (text === '' ? undefined : JSON.parse(text)) as Body, requestId };
    }
  }

  private async send(request: ApiRequest, idempotencyKey: string | undefined): Promise<Response> {
    const url = new URL(`${this.connection.apiUrl}${request.path}`);
    for (const [name, value] of Object.entries(request.query ?? {})) if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { authorization: `api-key ${this.connection.apiKey}`, accept: 'application/json' };
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey;
    let body: string | ReadableStream<Uint8Array> | undefined;
    if (request.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(request.json);
    } else if (request.multipart) {
      const multipart = request.multipart;
      headers['content-type'] = multipart.contentType;
      headers['content-length'] = String(multipart.contentLength);
      body = multipart.stream((sent) => request.onUploadProgress?.(sent, multipart.contentLength));
    }
    try {
      // `duplex: 'half'` is what fetch requires of a streamed request body.
      return await fetch(url, { method: request.method ?? 'GET', headers, body, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) } as RequestInit);
    } catch (error) {
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new ApiUnreachableError(`Cannot reach ${this.connection.apiUrl}: ${cause?.code ?? cause?.message ?? (error as Error).message}.`);
    }
  }
}

function retryAfterMilliseconds(header: string | null): number {
  const seconds = Number(header);
  // A missing or unreadable Retry-After still waits a moment rather than hammering the edge.
  return (Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds, maximumRetryAfterSeconds) : 1) * 1000;
}

/** The envelope's code, message, request id and details; a body that is no envelope (the edge's 429 text) as it came. */
function errorOf(status: number, text: string, headerRequestId: string | undefined): ApiError {
  try {
    const envelope = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown } }).error;
    if (envelope && typeof envelope.code === 'string' && typeof envelope.message === 'string') {
      const requestId = typeof envelope.requestId === 'string' ? envelope.requestId : headerRequestId;
      return new ApiError(status, envelope.code, envelope.message, requestId, Array.isArray(envelope.details) ? (envelope.details as ApiErrorDetail[]) : []);
    }
  } catch {
    // Not JSON: reported below with the text itself.
  }
  const code = status === 429 ? 'RATE_LIMITED' : `HTTP_${status}`;
  return new ApiError(status, code, text.trim().slice(0, 500) || `The API answered HTTP ${status} with no body.`, headerRequestId);
}
