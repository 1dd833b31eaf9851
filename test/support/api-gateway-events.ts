import type { APIGatewayProxyEvent } from 'aws-lambda';
import { principalToAuthorizerContext, type Principal } from '../../src/auth/principal.ts';

/**
 * An API Gateway REST proxy event as a handler receives it behind the authorizer; `principal: null`
 * leaves the authorizer context out (a route wired without it).
 */
export function anApiGatewayEvent(overrides: Partial<APIGatewayProxyEvent> = {}, principal: Principal | null = aPrincipal()): APIGatewayProxyEvent {
  return {
    resource: '/api/public/v1/things',
    path: '/api/public/v1/things',
    httpMethod: 'POST',
    headers: {},
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body: null,
    isBase64Encoded: false,
    requestContext: {
      requestId: 'req-unit',
      ...(principal ? { authorizer: principalToAuthorizerContext(principal) } : {}),
    } as unknown as APIGatewayProxyEvent['requestContext'],
    ...overrides,
  };
}

export function aPrincipal(overrides: Partial<Principal> = {}): Principal {
  return { workspaceId: 'ws_1', keyId: 'key_1', scopes: ['files:read', 'files:write'], ...overrides };
}
