import { describe, expect, it } from 'vitest';
import { policyForAuthenticatedKey } from '../../../src/auth/route-policy.ts';

describe('authorizer policy', () => {
  it('allows every method and path of the calling stage, so one cached answer serves every route', () => {
    const policy = policyForAuthenticatedKey('arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/GET/api/public/v1/files/file_1');

    expect(policy.Statement).toEqual([
      { Action: 'execute-api:Invoke', Effect: 'Allow', Resource: ['arn:aws:execute-api:eu-west-1:123456789012:abc123/v1/*'] },
    ]);
  });
});
