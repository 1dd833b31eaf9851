import { STATUS_CODES, createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { AddressInfo } from 'node:net';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
} from 'aws-lambda';
import {
  DomainError,
  ForbiddenError,
  InvalidRequestError,
  MethodNotAllowedError,
  PayloadTooLargeError,
  UnauthorizedError,
} from '../platform/errors.ts';
import { errorEnvelope, errorHeadersOf, httpStatusOf, toDomainError } from '../http/error-responses.ts';
import { clientRequestId, generatedRequestId } from '../http/request-id.ts';
import { attachStreamedBody } from '../http/request-body.ts';
import { RouteMatcher } from '../http/route-matching.ts';
import { apiBasePath, type RouteDefinition } from '../platform/route-table.ts';
import { TokenBucketLimiter } from '../auth/token-bucket.ts';
import { defaultRateLimit, type RateLimit } from '../auth/api-key-store.ts';
import { createLocalInvoker, lambdaContext, type InvokedFunction, type LocalInvoker } from './local-invoker.ts';
import type { ConsoleSite } from './console-site.ts';
import { logger, withLogContext } from '../infrastructure/logger.ts';

export interface LocalGatewayOptions {
  routes: readonly RouteDefinition[];
  /** Repository root, against which route handler paths resolve. */
  projectRoot: string;
  /** Module of the REQUEST authorizer, the same one the deployed API uses. */
  /** The authorizer's row (src/manifest/routes.ts): its handler and what it may touch. */
  authorizer: InvokedFunction;
  /** How handlers are run; the stack's, which knows its resource table (a new one over the manifest's otherwise). */
  invoker?: LocalInvoker;
  port: number;
  host?: string;
  /** Like API Gateway's authorizer result cache; 0 asks the authorizer on every request. */
  authorizerCacheSeconds: number;
  /** Mirrors API Gateway's 10 MB payload limit for bodies that are not streamed uploads. */
  maximumBufferedBodyBytes?: number;
  /**
   * How long a client may take to send a whole request, headers and body (default 30 s). A client
   * that stalls past it gets 400 INVALID_REQUEST in the envelope and the connection is closed, so a
   * slow or stuck client cannot hold a connection and a handler forever.
   */
  requestReadTimeoutMs?: number;
  /** The review console's static files, served beside the API at /console/ (deployed: CloudFront). */
  consoleSite?: ConsoleSite;
}

export const defaultRequestReadTimeoutMs = 30_000;

export interface RunningGateway {
  url: string;
  port: number;
  close(): Promise<void>;
}

// The same ARN shape API Gateway hands the authorizer, so the same policy code decides locally.
const localArnPrefix = 'arn:aws:execute-api:local:000000000000:paperflow-local/v1';

/**
 * A local stand-in for the deployed REST API, built from the same route table: route matching (404,
 * 405), the REQUEST authorizer and its policy (401), per-key token buckets (429), then the route's
 * Lambda handler, invoked with an API Gateway proxy event, which checks the route's scope (403).
 */
export async function startLocalGateway(options: LocalGatewayOptions): Promise<RunningGateway> {
  const matcher = new RouteMatcher(options.routes);
  const limiter = new TokenBucketLimiter();
  const authorizations = new Map<string, { result: APIGatewayAuthorizerResult; expiresAt: number }>();
  const invoker = options.invoker ?? createLocalInvoker(options.projectRoot);

  /** `cacheKey` stands for every Authorization value sent, as API Gateway caches by the identity source. */
  const authorize = async (cacheKey: string, event: APIGatewayRequestAuthorizerEvent) => {
    const cached = authorizations.get(cacheKey);
    if (cached && cached.expiresAt > Date.now()) return cached.result;
    let result: APIGatewayAuthorizerResult;
    try {
      result = await invoker.invoke<APIGatewayAuthorizerResult>(options.authorizer, event);
    } catch (error) {
      if ((error as Error).message === 'Unauthorized') throw new UnauthorizedError();
      throw error;
    }
    if (options.authorizerCacheSeconds > 0) {
      authorizations.set(cacheKey, { result, expiresAt: Date.now() + options.authorizerCacheSeconds * 1000 });
    }
    return result;
  };

  const serve = async (request: IncomingMessage, response: ServerResponse, requestId: string) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const method = (request.method ?? 'GET').toUpperCase();
    if (options.consoleSite?.owns(url.pathname)) {
      request.resume();
      options.consoleSite.serve(method, url.pathname, response);
      return;
    }
    // The path as sent: URL parsing would resolve "." and ".." segments (`/extractions/.` into the
    // list), which the route table answers with 404 instead.
    const path = requestPathOf(request.url ?? '/');
    if (!path.startsWith(`${apiBasePath}/`)) throw new DomainError('NOT_FOUND', `No operation exists at ${path}.`);
    const { route, pathParameters } = matcher.match(method, path.slice(apiBasePath.length));
    const headers = singleValueHeaders(request);
    const multiValueHeaders = multiValueHeadersOf(request);
    const methodArn = `${localArnPrefix}/${method}${path}`;

    let authorizerContext: Record<string, unknown> | undefined;
    if (route.scope !== 'public') {
      const authorization = await authorize(JSON.stringify(request.headersDistinct['authorization'] ?? []), {
        type: 'REQUEST',
        methodArn,
        resource: `${apiBasePath}${route.path}`,
        path,
        httpMethod: method,
        headers,
        multiValueHeaders,
        pathParameters,
        queryStringParameters: Object.fromEntries(url.searchParams),
        multiValueQueryStringParameters: {},
        stageVariables: {},
        requestContext: {} as APIGatewayRequestAuthorizerEvent['requestContext'],
      });
      if (!policyAllows(authorization, methodArn)) throw new ForbiddenError('The authorizer denied this request.');
      authorizerContext = { ...authorization.context, principalId: authorization.principalId };
      const decision = limiter.take(String(authorization.principalId), rateLimitOf(authorization.context));
      if (!decision.allowed) {
        // At the edge, as API Gateway answers it: status, Retry-After and a plain-text body.
        response.writeHead(429, { 'Content-Type': 'text/plain; charset=utf-8', 'Retry-After': String(decision.retryAfterSeconds), 'X-Request-Id': requestId });
        response.end('Too Many Requests');
        request.resume();
        return;
      }
    }

    const event = proxyEvent(request, url, path, route, pathParameters, { headers, multiValueHeaders }, requestId, authorizerContext);
    const streamed = route.requestBody?.['multipart/form-data'] !== undefined && isMultipart(headers);
    if (streamed) attachStreamedBody(event, request);
    else event.body = await bufferedBody(request, options.maximumBufferedBodyBytes ?? 10 * 1024 * 1024);
    // As API Gateway, which invokes nothing for a client gone before its request ended.
    if (clientWentAway(request)) return logClientGone(requestId);

    const result = await invoker.invoke<APIGatewayProxyResult>(route, event, lambdaContext(requestId));
    if (clientWentAway(request)) return logClientGone(requestId);
    const body = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? '', 'utf8');
    // The handler names the request id it used (the same one, from requestContext); HEAD gets GET's
    // headers, Content-Length included, and Node leaves the body out.
    const responseHeaders: Record<string, string> = { 'X-Request-Id': requestId, ...stringHeaders(result.headers), 'Content-Length': String(body.length) };
    if (streamed && !request.readableEnded) {
      // The handler answered before reading the whole upload (413, 415): discard the rest without
      // buffering it, and close the connection so the client sees the answer.
      responseHeaders.Connection = 'close';
      request.resume();
    }
    response.writeHead(result.statusCode, responseHeaders);
    response.end(body);
  };

  const requestReadTimeoutMs = options.requestReadTimeoutMs ?? defaultRequestReadTimeoutMs;
  const serverOptions = {
    requestTimeout: requestReadTimeoutMs,
    headersTimeout: requestReadTimeoutMs,
    // Node checks those deadlines on this interval (30 s by default): a short one keeps them bounded.
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(requestReadTimeoutMs / 4))),
  };
  const server: Server = createServer(serverOptions, (request, response) => {
    // The one id of this request: the header, the error body, the handler (through requestContext) and
    // the logs all use it.
    const requestId = clientRequestId(request.headersDistinct['x-request-id'] ?? []) ?? generatedRequestId();
    withLogContext({ requestId }, () => serve(request, response, requestId)).catch((error: unknown) => {
      if (clientWentAway(request)) return logClientGone(requestId);
      const apiError = toDomainError(error);
      if (!(error instanceof DomainError)) logger.error('request failed', { requestId, error });
      if (response.headersSent) {
        response.destroy();
        return;
      }
      response.writeHead(httpStatusOf(apiError), { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': requestId, ...errorHeadersOf(apiError) });
      response.end(JSON.stringify(errorEnvelope(apiError, requestId)));
      if (!request.readableEnded) request.resume();
    });
  });
  // Node's parser refuses what is not HTTP before any request handler runs, unknown methods (`FOO`)
  // included, and would answer a bare 400; answer with the envelope, and 404/405 from the route table.
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) =>
    answerClientError(error, socket, matcher, requestReadTimeoutMs),
  );
  server.on('connect', (request: IncomingMessage, socket: Duplex) => answerConnect(request, socket, matcher));
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolvePromise());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}${apiBasePath}`,
    port,
    close: () =>
      new Promise<void>((resolvePromise) => {
        server.closeAllConnections();
        server.close(() => resolvePromise());
      }),
  };
}

function answerClientError(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
  socket: Duplex,
  matcher: RouteMatcher,
  requestReadTimeoutMs: number,
): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const head = parseRequestHead(error.rawPacket);
  const requestId = clientRequestId(head.requestIds) ?? generatedRequestId();
  let apiError: DomainError;
  if (error.code === 'HPE_INVALID_METHOD' && head.method !== undefined && head.path !== undefined) {
    apiError = unmatchedMethodError(matcher, head.method, head.path);
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    // 400 rather than 408: the spec has no code for 408, and INVALID_REQUEST is always a 400.
    apiError = new InvalidRequestError(`The request was not received within ${requestReadTimeoutMs / 1000} seconds; send the whole body without pausing.`);
  } else if (error.code === 'HPE_HEADER_OVERFLOW') {
    apiError = new InvalidRequestError('The request headers are too large.');
  } else {
    apiError = new InvalidRequestError('The request is not well-formed HTTP.');
  }
  writeErrorAndClose(socket, apiError, requestId);
}

/**
 * CONNECT asks for a tunnel; Node hands it to a 'connect' listener, or closes the socket without a word
 * when there is none. It is a method no route serves: 405 with the path's Allow, or 404, as for `FOO`.
 */
function answerConnect(request: IncomingMessage, socket: Duplex, matcher: RouteMatcher): void {
  const requestId = clientRequestId(request.headersDistinct['x-request-id'] ?? []) ?? generatedRequestId();
  socket.on('error', () => socket.destroy());
  writeErrorAndClose(socket, unmatchedMethodError(matcher, 'CONNECT', request.url ?? ''), requestId);
}

/** An error answer written straight to the socket (no ServerResponse exists), then the connection closed. */
function writeErrorAndClose(socket: Duplex, apiError: DomainError, requestId: string): void {
  const body = JSON.stringify(errorEnvelope(apiError, requestId));
  const headerLines = Object.entries({
    'Content-Type': 'application/json; charset=utf-8',
    'X-Request-Id': requestId,
    ...errorHeadersOf(apiError),
    'Content-Length': String(Buffer.byteLength(body)),
    Connection: 'close',
  }).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${httpStatusOf(apiError)} ${STATUS_CODES[httpStatusOf(apiError)]}\r\n${headerLines.join('')}\r\n${body}`);
}

/** 404 for a path no route serves, else 405 with the path's Allow, as for any other unsupported method. */
function unmatchedMethodError(matcher: RouteMatcher, method: string, target: string): DomainError {
  const path = requestPathOf(target);
  if (!path.startsWith(`${apiBasePath}/`)) return new DomainError('NOT_FOUND', `No operation exists at ${path}.`);
  try {
    matcher.match(method, path.slice(apiBasePath.length));
  } catch (error) {
    return toDomainError(error);
  }
  return new MethodNotAllowedError(method, []);
}

/** The request line and X-Request-Id values of a request Node's parser refused, as far as they can be read. */
function parseRequestHead(rawPacket: Buffer | undefined): { method?: string; path?: string; requestIds: string[] } {
  const lines = (rawPacket ?? Buffer.alloc(0)).toString('latin1').split('\r\n');
  const requestLine = /^([^ ]+) ([^ ]+) HTTP\/\d\.\d$/.exec(lines[0] ?? '');
  const headerEnd = lines.indexOf('');
  const requestIds = lines
    .slice(1, headerEnd === -1 ? lines.length : headerEnd)
    .map((line) => /^x-request-id:[ \t]*(.*?)[ \t]*$/i.exec(line)?.[1])
    .filter((value): value is string => value !== undefined);
  return { method: requestLine?.[1], path: requestLine?.[2], requestIds };
}

/** The client closed the connection before sending the whole request (API Gateway never invokes then). */
function clientWentAway(request: IncomingMessage): boolean {
  return request.destroyed && !request.complete;
}

// Not a fault of the service, and nobody is left to answer: noted once, at info level.
function logClientGone(requestId: string): void {
  logger.info('The client went away before the request ended; it was dropped.', { requestId });
}

function policyAllows(result: APIGatewayAuthorizerResult, methodArn: string): boolean {
  const matches = (resource: string) => new RegExp(`^${resource.split('*').map(escapeRegExp).join('[^]*')}$`).test(methodArn);
  const statements = result.policyDocument.Statement as { Effect: string; Resource?: string | string[] }[];
  const resourcesWith = (effect: string) =>
    statements.filter((statement) => statement.Effect === effect).flatMap((statement) => [statement.Resource ?? []].flat());
  if (resourcesWith('Deny').some(matches)) return false;
  return resourcesWith('Allow').some(matches);
}

function rateLimitOf(context: APIGatewayAuthorizerResult['context']): RateLimit {
  const requestsPerSecond = Number(context?.rateLimitPerSecond);
  const burst = Number(context?.rateLimitBurst);
  return requestsPerSecond > 0 && burst > 0 ? { requestsPerSecond, burst } : defaultRateLimit;
}

function proxyEvent(
  request: IncomingMessage,
  url: URL,
  path: string,
  route: RouteDefinition,
  pathParameters: Record<string, string>,
  { headers, multiValueHeaders }: { headers: Record<string, string>; multiValueHeaders: Record<string, string[]> },
  requestId: string,
  authorizer: Record<string, unknown> | undefined,
): APIGatewayProxyEvent {
  // Client-chosen names: a map without a prototype, so `__proto__` is a name like any other.
  const multiValueQuery: Record<string, string[]> = Object.create(null);
  for (const [name, value] of url.searchParams) (multiValueQuery[name] ??= []).push(value);
  const hasQuery = Object.keys(multiValueQuery).length > 0;
  return {
    resource: `${apiBasePath}${route.path}`,
    path,
    httpMethod: request.method ?? 'GET',
    headers,
    multiValueHeaders,
    queryStringParameters: hasQuery ? Object.fromEntries(Object.entries(multiValueQuery).map(([name, values]) => [name, values.at(-1)!])) : null,
    multiValueQueryStringParameters: hasQuery ? multiValueQuery : null,
    pathParameters: Object.keys(pathParameters).length > 0 ? pathParameters : null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId,
      authorizer: authorizer ?? null,
      httpMethod: request.method ?? 'GET',
      path,
      resourcePath: `${apiBasePath}${route.path}`,
      stage: 'v1',
      requestTimeEpoch: Date.now(),
      identity: { sourceIp: request.socket.remoteAddress ?? '127.0.0.1' },
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

async function bufferedBody(request: IncomingMessage, limitBytes: number): Promise<string | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of request) {
    total += (chunk as Buffer).length;
    if (total > limitBytes) throw new PayloadTooLargeError(`The request body exceeds ${limitBytes} bytes.`);
    chunks.push(chunk as Buffer);
  }
  return total === 0 ? null : Buffer.concat(chunks).toString('utf8');
}

function isMultipart(headers: Record<string, string>): boolean {
  return /^multipart\/form-data/i.test(headers['content-type'] ?? '');
}

/** Every value of every header, kept apart as API Gateway's multiValueHeaders keeps them (Node drops a repeated Authorization from `headers`). */
function multiValueHeadersOf(request: IncomingMessage): Record<string, string[]> {
  const headers: Record<string, string[]> = Object.create(null);
  for (const [name, values] of Object.entries(request.headersDistinct)) if (values !== undefined) headers[name] = values;
  return headers;
}

/**
 * The path of a request target as sent, without its query: origin form (`/a/b?x`) as it is, absolute
 * form (`http://host/a/b`) without scheme and authority, anything else (a CONNECT's `host:port`) whole.
 */
function requestPathOf(target: string): string {
  return target.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '').split(/[?#]/)[0]!;
}

function singleValueHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = Object.create(null);
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function stringHeaders(headers: APIGatewayProxyResult['headers']): Record<string, string> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([name, value]) => [name, String(value)]));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
