import { describe, expect, it } from 'vitest';
import { policyForScopes } from '../../../src/auth/route-policy.ts';
import type { RouteDefinition } from '../../../src/http/route-table.ts';

const routes: RouteDefinition[] = [
  { operationId: 'doc', method: 'GET', path: '/openapi.json', handler: 'x', scope: 'public', summary: '', tag: '', responses: {} },
  { operationId: 'getFile', method: 'GET', path: '/files/{fileId}', handler: 'x', scope: 'files:read', summary: '', tag: '', responses: {} },
  { operationId: 'createFile', method: 'POST', path: '/files', handler: 'x', scope: 'files:write', summary: '', tag: '', responses: {} },
];
const methodArn = 'arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/GET/api/public/v1/files/file_1';

describe('authorizer policy', () => {
  it('allows exactly the routes the scopes grant, for every path parameter value', () => {
    const policy = policyForScopes(methodArn, ['files:read'], routes);

    expect(policy.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: ['arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/GET/api/public/v1/files/*'] },
    ]);
  });

  it('grants every non-public route to *', () => {
    const policy = policyForScopes(methodArn, ['*'], routes);

    expect(policy.Statement[0]!.Resource).toHaveLength(2);
  });

  it('denies everything when no scope matches', () => {
    const policy = policyForScopes(methodArn, ['events:read'], routes);

    expect(policy.Statement[0]!.Effect).toBe('Deny');
  });
});
