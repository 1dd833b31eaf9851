// Who is calling: the workspace a key belongs to and what it may do. The authorizer produces it;
// API Gateway (or the local gateway) passes it to handlers in the request context.
export interface Principal {
  workspaceId: string;
  keyId: string;
  scopes: string[];
}

/** API Gateway flattens authorizer context to string values, so scopes travel space-separated. */
export function principalToAuthorizerContext(principal: Principal): Record<string, string> {
  return { workspaceId: principal.workspaceId, keyId: principal.keyId, scopes: principal.scopes.join(' ') };
}

export function principalFromAuthorizerContext(context: Record<string, unknown> | null | undefined): Principal | undefined {
  if (!context || typeof context.workspaceId !== 'string' || typeof context.keyId !== 'string') return undefined;
  const scopes = typeof context.scopes === 'string' ? context.scopes.split(' ').filter(Boolean) : [];
  return { workspaceId: context.workspaceId, keyId: context.keyId, scopes };
}
