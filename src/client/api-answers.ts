import type { paths } from './api-schema.ts';

// What a typed call answered, as a caller wants it: the success body, typed by the operation, or a
// PaperflowApiError carrying the error envelope (spec, Errors). Shared by the `paperflow` CLI and the
// review console, so both read answers and envelopes the same way. Browser-safe.

export interface ApiErrorDetail {
  field: string;
  issue: string;
}

/** The API answered with an error: its envelope's code, message, request id and details, or what the edge sent instead. */
export class PaperflowApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId: string | undefined,
    readonly details: ApiErrorDetail[] = [],
  ) {
    super(message);
    this.name = 'PaperflowApiError';
  }
}

/** What openapi-fetch resolves a call with: the parsed body on success, the parsed (or text) error otherwise. */
export interface TypedCallResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The body a call's success answer carries (undefined for a 204). */
export type SuccessBody<Result extends TypedCallResult> = Exclude<Result, { data?: never }>['data'];

/** The success body, or the answer turned into a PaperflowApiError. */
export function bodyOf<Result extends TypedCallResult>(result: Result): SuccessBody<Result> {
  if (result.response.ok) return result.data as SuccessBody<Result>;
  throw apiErrorOf(result.response, result.error);
}

/**
 * The envelope's code, message, request id and details; a body that is no envelope (the edge's
 * plain-text 429, a proxy's HTML) as it came, with a code naming the status.
 */
export function apiErrorOf(response: Response, body: unknown): PaperflowApiError {
  const headerRequestId = response.headers.get('x-request-id') ?? undefined;
  const envelope = typeof body === 'object' && body !== null ? (body as { error?: { code?: unknown; message?: unknown; requestId?: unknown; details?: unknown } }).error : undefined;
  if (envelope && typeof envelope.code === 'string' && typeof envelope.message === 'string') {
    const requestId = typeof envelope.requestId === 'string' ? envelope.requestId : headerRequestId;
    const details = Array.isArray(envelope.details) ? envelope.details.filter(isDetail) : [];
    return new PaperflowApiError(response.status, envelope.code, envelope.message, requestId, details);
  }
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
  const code = response.status === 429 ? 'RATE_LIMITED' : `HTTP_${response.status}`;
  return new PaperflowApiError(response.status, code, text.trim().slice(0, 500) || `The API answered HTTP ${response.status} with no body.`, headerRequestId);
}

function isDetail(value: unknown): value is ApiErrorDetail {
  return typeof value === 'object' && value !== null && typeof (value as ApiErrorDetail).field === 'string' && typeof (value as ApiErrorDetail).issue === 'string';
}

type Method = 'get' | 'post' | 'patch' | 'delete';
type JsonContent<Response> = Response extends { content: { 'application/json': infer Body } } ? Body : never;

/**
 * The JSON body an operation answers with on success, named by its path and method as the OpenAPI
 * document has them: `ResponseBody<'/workflow-runs/{runId}', 'get'>` is a run.
 */
export type ResponseBody<Path extends keyof paths, M extends Method & keyof paths[Path]> = paths[Path][M] extends { responses: infer Responses }
  ? JsonContent<Responses[Extract<keyof Responses, 200 | 201 | 202>]>
  : never;

/** A page of a list operation: its items. */
export type ListedItem<Path extends keyof paths> = ResponseBody<Path, 'get' & keyof paths[Path]> extends { data: (infer Item)[] } ? Item : never;

/** The query parameters of a GET operation, as the OpenAPI document types them. */
export type QueryOf<Path extends keyof paths> = paths[Path] extends { get: { parameters: { query?: infer Query } } } ? NonNullable<Query> : never;
