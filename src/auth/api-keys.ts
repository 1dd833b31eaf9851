import { UnauthorizedError } from '../platform/errors.ts';
import { newIdentifier } from '../infrastructure/identifiers.ts';
import type { WorkspaceStore } from '../workspaces/workspace-store.ts';
import {
  apiKeyFromAuthorizationHeader,
  displayPrefixOf,
  generateApiKeySecret,
  hashApiKey,
  isWellFormedApiKey,
} from './api-key-secrets.ts';
import { defaultRateLimit, type ApiKeyRecord, type ApiKeyStore, type RateLimit } from './api-key-store.ts';
import type { Principal } from './principal.ts';
import { isGrantedScope, type GrantedScope } from './scopes.ts';

export interface CreateApiKeyInput {
  workspaceId: string;
  name: string;
  scopes: string[];
  rateLimit?: RateLimit;
  /** Only for the local bootstrap key, whose value the operator chose; otherwise generated. */
  secret?: string;
}

export interface AuthenticatedKey {
  principal: Principal;
  rateLimit: RateLimit;
  usageIdentifierKey?: string;
}

/**
 * Where the deployed stack enforces per-key rate limits at the edge (API Gateway usage plans). The
 * local gateway enforces the same limits itself, so it runs without one.
 */
export interface EdgeRateLimitRegistry {
  /** Registers the key's limits; returns the value the authorizer hands back as `usageIdentifierKey`. */
  register(record: ApiKeyRecord): Promise<string>;
}

export class ApiKeyService {
  constructor(
    private readonly keys: ApiKeyStore,
    private readonly workspaces: WorkspaceStore,
    private readonly now: () => Date = () => new Date(),
    private readonly edgeRateLimits?: EdgeRateLimitRegistry,
  ) {}

  /** Returns the secret exactly once, with the stored record; the secret itself is never stored. */
  async create(input: CreateApiKeyInput): Promise<{ secret: string; record: ApiKeyRecord }> {
    const unknownScopes = input.scopes.filter((scope) => !isGrantedScope(scope));
    if (input.scopes.length === 0 || unknownScopes.length > 0) {
      throw new Error(`Scopes must be "*" or known scopes; refused: ${unknownScopes.join(', ') || '(none given)'}.`);
    }
    if (!(await this.workspaces.get(input.workspaceId))) throw new Error(`Workspace ${input.workspaceId} does not exist.`);
    const secret = input.secret ?? generateApiKeySecret();
    if (!isWellFormedApiKey(secret)) throw new Error('An API key must look like pf_live_<at least 16 of A-Z a-z 0-9 _ ->.');
    const record: ApiKeyRecord = {
      keyId: newIdentifier('key'),
      workspaceId: input.workspaceId,
      name: input.name,
      scopes: input.scopes as GrantedScope[],
      displayPrefix: displayPrefixOf(secret),
      rateLimit: input.rateLimit ?? defaultRateLimit,
      createdAt: this.now().toISOString(),
    };
    if (this.edgeRateLimits) record.usageIdentifierKey = await this.edgeRateLimits.register(record);
    await this.keys.put(record, hashApiKey(secret));
    return { secret, record };
  }

  /** Makes sure a key with this exact secret exists (idempotent), for the local bootstrap key. */
  async ensure(input: CreateApiKeyInput & { secret: string }): Promise<ApiKeyRecord> {
    const existing = await this.keys.findBySecretHash(hashApiKey(input.secret));
    if (existing && !existing.revokedAt) return existing;
    if (existing) throw new Error('The bootstrap API key was revoked; choose another PAPERFLOW_BOOTSTRAP_API_KEY.');
    return (await this.create(input)).record;
  }

  list(workspaceId: string): Promise<ApiKeyRecord[]> {
    return this.keys.listByWorkspace(workspaceId);
  }

  revoke(keyId: string): Promise<boolean> {
    return this.keys.revoke(keyId, this.now().toISOString());
  }

  /** Missing, malformed, unknown and revoked keys are all the same 401 to the caller. */
  async authenticate(authorizationHeader: string | undefined): Promise<AuthenticatedKey> {
    const secret = apiKeyFromAuthorizationHeader(authorizationHeader);
    if (!secret || !isWellFormedApiKey(secret)) throw new UnauthorizedError();
    const record = await this.keys.findBySecretHash(hashApiKey(secret));
    if (!record || record.revokedAt) throw new UnauthorizedError();
    return {
      principal: { workspaceId: record.workspaceId, keyId: record.keyId, scopes: record.scopes },
      rateLimit: record.rateLimit,
      ...(record.usageIdentifierKey ? { usageIdentifierKey: record.usageIdentifierKey } : {}),
    };
  }
}
