import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { headerValuesOf } from '../../src/http/headers.ts';
import { principalToAuthorizerContext } from '../../src/auth/principal.ts';
import { policyForAuthenticatedKey } from '../../src/auth/route-policy.ts';
import { apiKeyService } from '../../src/composition/auth.ts';
import { UnauthorizedError } from '../../src/platform/errors.ts';

/** REQUEST authorizer: API Gateway turns the thrown "Unauthorized" into its 401 gateway response. */
export const handler = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  try {
    // Two Authorization headers are refused rather than picked from: which one the client meant is not ours to guess.
    const authorization = headerValuesOf(event, 'authorization');
    const { principal, rateLimit, usageIdentifierKey } = await apiKeyService().authenticate(authorization.length === 1 ? authorization[0] : undefined);
    return {
      principalId: principal.keyId,
      policyDocument: policyForAuthenticatedKey(event.methodArn),
      // Deployed, the REST API takes the API key from here (apiKeySourceType AUTHORIZER): the request
      // counts against that key's usage plan. Keys without one are refused by API Gateway (403).
      ...(usageIdentifierKey ? { usageIdentifierKey } : {}),
      // The rate limit travels along for the local gateway's token buckets; deployed, usage plans apply it.
      context: { ...principalToAuthorizerContext(principal), rateLimitPerSecond: rateLimit.requestsPerSecond, rateLimitBurst: rateLimit.burst },
    };
  } catch (error) {
    if (error instanceof UnauthorizedError) throw new Error('Unauthorized');
    throw error;
  }
};
