import type { RouteDefinition } from '../http/route-table.ts';
import { apiBasePath } from '../http/route-table.ts';
import { scopeAllows } from './scopes.ts';

export interface PolicyDocument {
  Version: '2012-10-17';
  Statement: { Action: 'execute-api:Invoke'; Effect: 'Allow' | 'Deny'; Resource: string[] }[];
}

/**
 * The authorizer's answer is cached per key for every route, so it must list every route the key's
 * scopes allow rather than only the one being called. A route outside the list gets API Gateway's
 * 403, rendered as FORBIDDEN. Works from `arn:aws:execute-api:region:account:api/stage/METHOD/path`.
 */
export function policyForScopes(methodArn: string, scopes: readonly string[], routes: readonly RouteDefinition[]): PolicyDocument {
  const [apiArn, stage] = methodArn.split('/');
  const allowed = routes
    .filter((route) => route.scope !== 'public' && scopeAllows(scopes, route.scope))
    .map((route) => `${apiArn}/${stage}/${route.method}${apiBasePath}${route.path.replace(/\{\w+\}/g, '*')}`);
  return {
    Version: '2012-10-17',
    Statement: [
      allowed.length > 0
        ? { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: allowed }
        : { Action: 'execute-api:Invoke', Effect: 'Deny', Resource: [`${apiArn}/${stage}/*`] },
    ],
  };
}
