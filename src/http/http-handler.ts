import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { config, safeParse, type $ZodType as ZodType } from 'zod/v4/core';
import { en } from 'zod/v4/locales';
import {
  DomainError,
  ForbiddenError,
  InvalidRequestError,
  NotAcceptableError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  ValidationError,
  type ValidationIssue,
} from '../platform/errors.ts';
import { errorEnvelope, errorHeadersOf, httpStatusOf, toDomainError } from './error-responses.ts';
import { headerValuesOf, lowerCaseHeaders } from './headers.ts';
import { answerIdempotently } from './idempotent-answers.ts';
import { idempotencyKeyOf } from '../platform/idempotency/idempotency-key.ts';
import type { IdempotentRequests } from '../platform/idempotency/idempotent-requests.ts';
import { generatedRequestId, requestIdOf } from './request-id.ts';
import { clientAbandonedBody, hasStreamedBody, requestBodyBuffer } from './request-body.ts';
import type { RouteBody, RouteDefinition, RouteQuery } from '../platform/route-table.ts';
import { principalFromAuthorizerContext, type Principal } from '../auth/principal.ts';
import { scopeAllows } from '../auth/scopes.ts';
import { invocationFields, logger, withLogContext } from '../infrastructure/logger.ts';
import { textDefectOf, textDefectsIn } from '../platform/text-integrity.ts';

// Classic zod installs its English messages when imported; zod/mini (what route schemas use, for small
// bundles) installs none, and every issue would read "Invalid input". The details a client sees must
// not depend on which flavour a bundle happens to include.
config(en());

export interface HttpRequest<TBody = unknown, TQuery = unknown> {
  requestId: string;
  /** The authenticated caller; routes marked `public` get none. */
  principal: Principal;
  pathParameters: Record<string, string>;
  query: TQuery;
  /** The parsed JSON body, when the route accepts JSON and the request sent it. */
  body: TBody;
  /** The request's media type (without parameters), lower case; empty when no body was sent. */
  contentType: string;
  headers: Record<string, string>;
  event: APIGatewayProxyEvent;
}

export interface HttpResponse {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type RouteContract = Pick<RouteDefinition, 'scope' | 'query' | 'requestBody' | 'requestBodyOptional' | 'acceptsIdempotencyKey'> & {
  /** Skip the query check: only for the answer to unmatched routes, which says 404/405 whatever the query. */
  anyQuery?: boolean;
};

/** What some rows' steps need beyond the request, given by the handler module, which has the composition root's builders. */
export interface HttpChainDependencies {
  /**
   * Where Idempotency-Keys are kept, for a row with `acceptsIdempotencyKey` (pass `idempotentRequests`
   * of src/composition/idempotency.ts). Given by the handler rather than imported here, so that the
   * operations that use no table (the OpenAPI document, 404/405) do not bundle the DynamoDB client.
   */
  idempotentRequests?: () => IdempotentRequests;
}

interface RequestState {
  requestId: string;
}

/**
 * The shared HTTP behaviour of every operation, as one middy chain: request id, content negotiation,
 * principal and the route's scope (403), content type, body and query parsing, the Idempotency-Key of
 * the routes that take one (src/http/idempotent-answers.ts), and one error renderer placed last. `route` is the operation's own row of the route table; its schemas type the
 * request's `body` and `query`.
 */
export function httpHandler<TRoute extends RouteContract>(
  route: TRoute,
  handle: (request: HttpRequest<RouteBody<TRoute>, RouteQuery<TRoute>>) => Promise<HttpResponse>,
  { idempotentRequests }: HttpChainDependencies = {},
) {
  // At the cold start, not on the first request with a key: a row that promises keys must keep them.
  if (route.acceptsIdempotencyKey && !idempotentRequests) throw new Error('A route that accepts an Idempotency-Key needs its handler to pass idempotentRequests.');
  const state = new WeakMap<APIGatewayProxyEvent, RequestState>();
  const chain = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, Context>()
    .use(responseRendering(state))
    .use(contentNegotiation())
    .handler(async (event) => {
      const requestId = state.get(event)!.requestId;
      const headers = lowerCaseHeaders(event.headers);
      const principal = route.scope === 'public' ? anonymousPrincipal : requirePrincipal(event);
      if (!scopeAllows(principal.scopes, route.scope)) {
        throw new ForbiddenError(`This API key lacks the scope "${route.scope}" this operation needs.`);
      }
      const idempotencyKey = route.acceptsIdempotencyKey ? idempotencyKeyOf(headerValuesOf(event, 'idempotency-key')) : undefined;
      const contentType = mediaTypeOf(headers['content-type']);
      const body = parseBody(route, event, contentType) as RouteBody<TRoute>;
      const query = parseQuery(route, event) as RouteQuery<TRoute>;
      const respond = () =>
        handle({
          requestId,
          principal,
          pathParameters: (event.pathParameters ?? {}) as Record<string, string>,
          query,
          body,
          contentType,
          headers,
          event,
        });
      if (idempotencyKey === undefined) return renderSuccess(await respond(), requestId);
      return answerIdempotently(idempotentRequests!(), { event, workspaceId: principal.workspaceId, key: idempotencyKey, mediaType: contentType, requestId }, respond);
    });
  // The request id is decided before the chain runs, so that every line logged while it runs (the
  // handler's, the domain's, the error renderer's) carries the id the response names.
  return (event: APIGatewayProxyEvent, context: Context): Promise<APIGatewayProxyResult> => {
    const requestId = requestIdOf(event);
    state.set(event, { requestId });
    return withLogContext({ requestId, ...invocationFields(context) }, () => chain(event, context));
  };
}

const anonymousPrincipal: Principal = { workspaceId: '', keyId: '', scopes: [] };

function responseRendering(state: WeakMap<APIGatewayProxyEvent, RequestState>): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    onError: (request) => {
      const requestId = state.get(request.event)?.requestId ?? generatedRequestId();
      const domainError = toDomainError(request.error);
      if (!(request.error instanceof DomainError)) {
        // The client sees a generic 500; the cause goes to the log with the request id to find it. A
        // failure that follows the client's leaving mid-body (a read or an upload cut short) is its
        // consequence, not a fault of the service: nobody is left to answer, and it is noted at info.
        if (clientAbandonedBody(request.event)) logger.info('request failed after its client left mid-body', { requestId, error: request.error });
        else logger.error('request failed', { requestId, error: request.error });
      }
      return renderError(domainError, requestId);
    },
  };
}

function contentNegotiation(): MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult> {
  return {
    before: (request) => {
      const accept = lowerCaseHeaders(request.event.headers)['accept'];
      if (!acceptsJson(accept)) throw new NotAcceptableError();
    },
  };
}

export function renderError(error: DomainError, requestId: string): APIGatewayProxyResult {
  return {
    statusCode: httpStatusOf(error),
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': requestId, ...errorHeadersOf(error) },
    body: JSON.stringify(errorEnvelope(error, requestId)),
  };
}

export function renderSuccess(response: HttpResponse, requestId: string): APIGatewayProxyResult {
  const hasBody = response.body !== undefined;
  return {
    statusCode: response.status,
    headers: {
      ...(hasBody ? { 'Content-Type': 'application/json; charset=utf-8' } : {}),
      'X-Request-Id': requestId,
      ...response.headers,
    },
    body: hasBody ? JSON.stringify(response.body) : '',
  };
}

/** `Accept` absent, or naming JSON, `application/*` or `*\/*` with a non-zero quality, accepts JSON. */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((entry) => {
    const [range = '', ...parameters] = entry.split(';').map((part) => part.trim().toLowerCase());
    const quality = parameters.find((parameter) => parameter.startsWith('q='));
    if (quality !== undefined && Number(quality.slice(2)) === 0) return false;
    return range === 'application/json' || range === 'application/*' || range === '*/*' || range.endsWith('+json');
  });
}

function requirePrincipal(event: APIGatewayProxyEvent): Principal {
  const principal = principalFromAuthorizerContext(event.requestContext?.authorizer);
  // The authorizer already refused unknown keys; this guards against a route wired without it.
  if (!principal) throw new UnauthorizedError();
  return principal;
}

function parseBody(route: RouteContract, event: APIGatewayProxyEvent, contentType: string): unknown {
  const accepted = route.requestBody;
  if (!accepted) return undefined;
  const hasBody = hasStreamedBody(event) || (event.body !== null && event.body !== undefined && event.body !== '');
  if (!hasBody && !contentType) {
    if (route.requestBodyOptional) return undefined;
    if (accepted['application/json']) throw new InvalidRequestError('A JSON request body is required.');
    throw new UnsupportedMediaTypeError(`Send the request as ${Object.keys(accepted).join(' or ')}.`);
  }
  if (!(contentType in accepted)) {
    throw new UnsupportedMediaTypeError(
      `Content type "${contentType || '(none)'}" is not supported here; send ${Object.keys(accepted).join(' or ')}.`,
    );
  }
  if (contentType !== 'application/json') return undefined; // multipart bodies are streamed by the handler
  let json: unknown;
  try {
    // Bytes that are not UTF-8 become U+FFFD here, as API Gateway decodes them deployed; the text rule
    // below refuses the strings holding it.
    json = JSON.parse(requestBodyBuffer(event).toString('utf8'));
  } catch {
    throw new InvalidRequestError('The request body is not readable JSON.');
  }
  const textIssues = textDefectsIn(json).map(({ path, defect }) => ({ field: jsonPathOf(path), issue: defect }));
  const body = validateWith(accepted['application/json']!, json, (issues) => new ValidationError([...textIssues, ...issues]));
  if (textIssues.length > 0) throw new ValidationError(textIssues);
  return body;
}

function parseQuery(route: RouteContract, event: APIGatewayProxyEvent): unknown {
  if (route.anyQuery) return {};
  const query = queryObject(event);
  const acceptedNames = route.query ? Object.keys(route.query._zod.def.shape) : [];
  const unknownName = Object.keys(query).find((name) => !acceptedNames.includes(name));
  if (unknownName !== undefined) {
    throw new InvalidRequestError(
      acceptedNames.length === 0
        ? `This operation takes no query parameters; "${unknownName}" was sent.`
        : `Unknown query parameter "${unknownName}"; this operation accepts ${acceptedNames.map((name) => `"${name}"`).join(', ')}.`,
    );
  }
  if (!route.query) return {};
  return validateWith(route.query, query, (issues) =>
    new InvalidRequestError(`Invalid query parameter ${issues.map((issue) => `"${issue.field}": ${issue.issue}`).join('; ')}.`),
  );
}

// Parameter names become object keys. Names that only mean something to JavaScript's object model
// would reach Object.prototype through a plain object (`__proto__[x]=1` once polluted every later
// request of the process), so they are refused, and the objects built here have no prototype.
const reservedNames = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * Single values as strings; deep-object parameters (`labels[key]=v`) nest one level, where any key
 * but `__proto__` is an ordinary key. A parameter sent twice is 400: keeping one of the values would
 * silently drop the other. Names and values follow the text rule of bodies (src/platform/text-integrity.ts).
 */
export function queryObject(event: Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'>): Record<string, unknown> {
  const result: Record<string, unknown> = Object.create(null);
  for (const [name, values] of queryParameterValues(event)) {
    if (values.length > 1) throw new InvalidRequestError(`Query parameter "${name}" is sent ${values.length} times; send it once.`);
    const value = values[0] ?? '';
    const defect = textDefectOf(name) ?? textDefectOf(value);
    if (defect !== undefined) throw new InvalidRequestError(`Query parameter "${name}": ${textDefectOf(name) ? 'its name' : 'its value'} ${defect}.`);
    const deep = /^(\w+)\[([^\]]*)\]$/.exec(name);
    const groupName = deep ? deep[1]! : name;
    if (reservedNames.has(groupName)) throw new InvalidRequestError(`Query parameter "${name}" is not accepted.`);
    if (!deep) {
      if (Object.hasOwn(result, name)) throw new InvalidRequestError(`Query parameter "${name}" is sent both as a value and as ${name}[key].`);
      result[name] = value;
      continue;
    }
    const key = deep[2]!;
    if (key === '__proto__') throw new InvalidRequestError(`Query parameter "${name}": "__proto__" is not accepted as a key.`);
    const group = (result[groupName] ??= Object.create(null)) as Record<string, string> | string;
    if (typeof group === 'string') throw new InvalidRequestError(`Query parameter "${groupName}" is sent both as a value and as ${groupName}[key].`);
    group[key] = value;
  }
  return result;
}

/** Every parameter's values, from API Gateway's multi-value map where present, else the single-value one. */
function queryParameterValues(event: Pick<APIGatewayProxyEvent, 'queryStringParameters' | 'multiValueQueryStringParameters'>): Map<string, string[]> {
  const values = new Map<string, string[]>();
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) if (value !== undefined) values.set(name, [value]);
  for (const [name, multiple] of Object.entries(event.multiValueQueryStringParameters ?? {})) if (multiple !== undefined) values.set(name, multiple);
  return values;
}

export function validateWith<T>(schema: ZodType<T>, input: unknown, toError: (issues: ValidationIssue[]) => Error): T {
  const parsed = safeParse(schema, input);
  if (parsed.success) return parsed.data;
  throw toError(
    parsed.error.issues.flatMap((issue) =>
      // A strict object reports its unknown keys together, at the object; each is named as sent instead.
      issue.code === 'unrecognized_keys'
        ? issue.keys.map((key) => ({ field: jsonPathOf([...issue.path, key]), issue: 'is not an accepted field' }))
        : [{ field: jsonPathOf(issue.path), issue: issue.message }],
    ),
  );
}

function jsonPathOf(path: PropertyKey[]): string {
  return path.reduce<string>((joined, key) => {
    if (typeof key === 'number') return `${joined}[${key}]`;
    return joined ? `${joined}.${String(key)}` : String(key);
  }, '');
}

function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}
