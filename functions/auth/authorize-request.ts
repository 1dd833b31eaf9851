import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { lowerCaseHeaders } from '../../src/http/http-handler.ts';
import { routes } from '../../src/http/routes.ts';
import { principalToAuthorizerContext } from '../../src/auth/principal.ts';
import { policyForScopes } from '../../src/auth/route-policy.ts';
import { apiKeyService } from '../../src/auth/wiring.ts';
import { UnauthorizedError } from '../../src/http/errors.ts';

/** REQUEST authorizer: API Gateway turns the thrown "Unauthorized" into its 401 gateway response. */
export const handler = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  try {
    const { principal } = await apiKeyService().authenticate(lowerCaseHeaders(event.headers)['authorization']);
    return {
      principalId: principal.keyId,
      policyDocument: policyForScopes(event.methodArn, principal.scopes, routes),
      context: principalToAuthorizerContext(principal),
    };
  } catch (error) {
    if (error instanceof UnauthorizedError) throw new Error('Unauthorized');
    throw error;
  }
};
