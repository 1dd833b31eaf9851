// The permission model of DESIGN.md: a key carries scopes; `*` grants everything.
export const scopes = [
  'files:read',
  'files:write',
  'extractions:read',
  'extractions:write',
  'workflows:read',
  'workflows:run',
  'events:read',
  'subscriptions:read',
  'subscriptions:write',
] as const;

export type Scope = (typeof scopes)[number];
export type GrantedScope = Scope | '*';

export function isGrantedScope(value: string): value is GrantedScope {
  return value === '*' || (scopes as readonly string[]).includes(value);
}

export function scopeAllows(granted: readonly string[], required: Scope | 'public'): boolean {
  return required === 'public' || granted.includes('*') || granted.includes(required);
}
