import { ResponseType, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import {
  DomainError,
  ForbiddenError,
  InvalidRequestError,
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  RateLimitedError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from '../src/platform/errors.ts';
import { errorEnvelope, errorHeadersOf } from '../src/http/error-responses.ts';

// Answers API Gateway gives itself, before any Lambda runs (no key, wrong scope, throttled, unknown
// path, body over 10 MB), rendered as the spec's error envelope by the same `errorEnvelope` the
// handlers use. Gateway response templates are not VTL: they only substitute `$context` and
// `$stageVariables` values, so `requestId` is API Gateway's own `$context.requestId`. The
// X-Request-Id header carries the same value: every response has one, and header and body agree,
// at the price of not echoing a client's own id on these edge answers (the handlers echo it).

/** Stands in for `$context.error.messageString`, which API Gateway renders already JSON-quoted. */
const gatewayMessage = '__GATEWAY_MESSAGE__';

export interface GatewayErrorResponse {
  type: ResponseType;
  error: DomainError;
  /** Omitted for the DEFAULT_* fallbacks, which keep the status API Gateway chose (e.g. 502, 504). */
  statusCode?: number;
}

export const gatewayErrorResponses: GatewayErrorResponse[] = [
  // A missing Authorization header, or the authorizer's "Unauthorized" (unknown, malformed, revoked key).
  { type: ResponseType.UNAUTHORIZED, error: new UnauthorizedError(), statusCode: 401 },
  // The cached policy lists only the routes the key's scopes allow.
  {
    type: ResponseType.ACCESS_DENIED,
    error: new ForbiddenError('This API key may not perform this operation: its scopes do not include it.'),
    statusCode: 403,
  },
  // apiKeyRequired with no (or an unknown) usageIdentifierKey: the key was issued without the usage-plan
  // registry (PAPERFLOW_USAGE_PLAN_ID and friends unset for the admin CLI) or its API Gateway key is gone.
  {
    type: ResponseType.INVALID_API_KEY,
    error: new ForbiddenError('This API key is not enabled for this deployment; ask the operator to issue a new one.'),
    statusCode: 403,
  },
  // Usage-plan throttling. A token bucket refills within a second at any configured rate.
  { type: ResponseType.THROTTLED, error: new RateLimitedError(1), statusCode: 429 },
  // Unknown paths outside the route tree and methods API Gateway has no resource for.
  {
    type: ResponseType.MISSING_AUTHENTICATION_TOKEN,
    error: new NotFoundError('No operation exists at this path.'),
    statusCode: 404,
  },
  { type: ResponseType.RESOURCE_NOT_FOUND, error: new NotFoundError('No operation exists at this path.'), statusCode: 404 },
  {
    type: ResponseType.REQUEST_TOO_LARGE,
    error: new PayloadTooLargeError(
      'The request exceeds the 10 MB that API Gateway accepts; for files up to 50 MB, POST /files with a JSON body to get a pre-signed upload.',
    ),
    statusCode: 413,
  },
  {
    type: ResponseType.UNSUPPORTED_MEDIA_TYPE,
    error: new UnsupportedMediaTypeError('The request content type is not supported here.'),
    statusCode: 415,
  },
  { type: ResponseType.DEFAULT_4XX, error: new InvalidRequestError(gatewayMessage) },
  // 5xx bodies stay generic: the cause is in the function's or API Gateway's logs.
  { type: ResponseType.DEFAULT_5XX, error: new InternalError() },
];

/** The gateway response body: the error envelope with API Gateway's substitutions in place. */
export function gatewayErrorTemplate(error: DomainError): string {
  return JSON.stringify(errorEnvelope(error, '$context.requestId')).replace(
    `"${gatewayMessage}"`,
    '$context.error.messageString',
  );
}

export function addGatewayErrorResponses(api: RestApi): void {
  for (const { type, error, statusCode } of gatewayErrorResponses) {
    api.addGatewayResponse(`GatewayResponse${pascalCase(type.responseType)}`, {
      type,
      ...(statusCode !== undefined ? { statusCode: String(statusCode) } : {}),
      responseHeaders: {
        'Content-Type': "'application/json'",
        'X-Request-Id': 'context.requestId',
        ...Object.fromEntries(Object.entries(errorHeadersOf(error)).map(([name, value]) => [name, `'${value}'`])),
      },
      templates: { 'application/json': gatewayErrorTemplate(error) },
    });
  }
}

function pascalCase(responseType: string): string {
  return responseType
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');
}
