export interface PolicyDocument {
  Version: '2012-10-17';
  Statement: { Action: 'execute-api:Invoke'; Effect: 'Allow' | 'Deny'; Resource: string[] }[];
}

/**
 * The authorizer answers "who is this", not "may they do this": its result is cached per key for
 * every route, so it allows the whole API, and each handler checks its own route's scope (403 with
 * the error envelope). Works from `arn:aws:execute-api:region:account:api/stage/METHOD/path`.
 */
export function policyForAuthenticatedKey(methodArn: string): PolicyDocument {
  const [apiArn, stage] = methodArn.split('/');
  return {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: [`${apiArn}/${stage}/*`] }],
  };
}
