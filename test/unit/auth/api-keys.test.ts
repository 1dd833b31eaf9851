import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../../src/auth/api-key-store.ts';
import { ApiKeyService, type EdgeRateLimitRegistry } from '../../../src/auth/api-keys.ts';
import { hashApiKey } from '../../../src/auth/api-key-secrets.ts';
import { UnauthorizedError } from '../../../src/platform/errors.ts';
import { InMemoryApiKeyStore } from '../../support/memory/in-memory-api-keys.ts';
import { InMemoryWorkspaceStore } from '../../support/memory/in-memory-workspaces.ts';

// The key service's rules over in-memory adapters; the table's item layout is dynamodb-api-key-store.test.ts's.

const secret = 'pf_live_0123456789abcdefghij';
const storedKey: ApiKeyRecord = {
  keyId: 'key_1',
  workspaceId: 'ws_1',
  name: 'ci',
  scopes: ['files:read'],
  displayPrefix: 'pf_live_0123…',
  rateLimit: { requestsPerSecond: 5, burst: 10 },
  createdAt: '2026-01-01T00:00:00Z',
};

/** A service over in-memory stores holding workspace ws_1 and, when given, a key whose secret is `secret`. */
function aKeyService(options: { keyOfSecret?: ApiKeyRecord; edgeRateLimits?: EdgeRateLimitRegistry } = {}) {
  const keys = new InMemoryApiKeyStore();
  if (options.keyOfSecret) keys.keysByHash.set(hashApiKey(secret), structuredClone(options.keyOfSecret));
  const workspaces = new InMemoryWorkspaceStore([{ id: 'ws_1', name: 'one', createdAt: '2026-01-01T00:00:00Z' }]);
  const service = new ApiKeyService(keys, workspaces, () => new Date('2026-01-02T03:04:05Z'), options.edgeRateLimits);
  return { service, keys };
}

describe('authenticating API keys', () => {
  it('finds the key by its hash and returns the workspace, scopes and rate limit', async () => {
    const { service } = aKeyService({ keyOfSecret: storedKey });

    const authenticated = await service.authenticate(`api-key ${secret}`);

    expect(authenticated).toEqual({
      principal: { workspaceId: 'ws_1', keyId: 'key_1', scopes: ['files:read'] },
      rateLimit: { requestsPerSecond: 5, burst: 10 },
    });
  });

  it('accepts the scheme in any case and hands back the edge usage key', async () => {
    const { service } = aKeyService({ keyOfSecret: { ...storedKey, usageIdentifierKey: 'pf_usage_key_1' } });

    const authenticated = await service.authenticate(`API-KEY ${secret}`);

    expect(authenticated.usageIdentifierKey).toBe('pf_usage_key_1');
  });

  it.each([undefined, 'api-key', 'Basic abc', 'api-key not-a-paperflow-key'])('refuses %j without looking a key up', async (header) => {
    const { service, keys } = aKeyService({ keyOfSecret: storedKey });

    await expect(service.authenticate(header)).rejects.toBeInstanceOf(UnauthorizedError);
    expect(keys.reads).toBe(0);
  });

  it('refuses unknown and revoked keys alike', async () => {
    const { service: withoutKeys } = aKeyService();
    const { service: withRevokedKey } = aKeyService({ keyOfSecret: { ...storedKey, revokedAt: '2026-01-01T01:00:00Z' } });

    await expect(withoutKeys.authenticate(`api-key ${secret}`)).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(withRevokedKey.authenticate(`api-key ${secret}`)).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('lets a failing store surface as an error, not as a 401 that would hide the outage', async () => {
    const { service, keys } = aKeyService({ keyOfSecret: storedKey });
    const outage = new Error('table unavailable');
    keys.findBySecretHash = () => Promise.reject(outage);

    await expect(service.authenticate(`api-key ${secret}`)).rejects.toBe(outage);
  });
});

describe('creating and revoking keys', () => {
  it('stores only the hash, returns the secret once, and the new key authenticates', async () => {
    const { service, keys } = aKeyService();

    const { secret: created, record } = await service.create({ workspaceId: 'ws_1', name: 'ci', scopes: ['files:read', 'files:write'] });

    expect([...keys.keysByHash.keys()]).toEqual([hashApiKey(created)]);
    expect(JSON.stringify([...keys.keysByHash.values()])).not.toContain(created);
    expect(record).toMatchObject({ workspaceId: 'ws_1', scopes: ['files:read', 'files:write'], rateLimit: { requestsPerSecond: 25, burst: 50 }, createdAt: '2026-01-02T03:04:05.000Z' });
    expect((await service.authenticate(`api-key ${created}`)).principal).toEqual({ workspaceId: 'ws_1', keyId: record.keyId, scopes: ['files:read', 'files:write'] });
  });

  it('refuses unknown scopes and unknown workspaces, storing nothing', async () => {
    const { service, keys } = aKeyService();

    await expect(service.create({ workspaceId: 'ws_1', name: 'x', scopes: ['files:delete'] })).rejects.toThrow(/files:delete/);
    await expect(service.create({ workspaceId: 'ws_1', name: 'x', scopes: [] })).rejects.toThrow(/none given/);
    await expect(service.create({ workspaceId: 'ws_9', name: 'x', scopes: ['*'] })).rejects.toThrow(/ws_9/);
    expect(keys.keysByHash.size).toBe(0);
  });

  it('registers the key at the edge before storing it, with the value the authorizer returns', async () => {
    const registered: string[] = [];
    const { service } = aKeyService({ edgeRateLimits: { register: async (record) => (registered.push(record.keyId), `pf_usage_${record.keyId}`) } });

    const { secret: created, record } = await service.create({ workspaceId: 'ws_1', name: 'ci', scopes: ['*'], rateLimit: { requestsPerSecond: 2, burst: 4 } });

    expect(registered).toEqual([record.keyId]);
    expect(await service.authenticate(`api-key ${created}`)).toMatchObject({ rateLimit: { requestsPerSecond: 2, burst: 4 }, usageIdentifierKey: `pf_usage_${record.keyId}` });
  });

  it('revokes by key id, after which the key no longer authenticates', async () => {
    const { service } = aKeyService({ keyOfSecret: storedKey });

    expect(await service.revoke('key_1')).toBe(true);

    await expect(service.authenticate(`api-key ${secret}`)).rejects.toBeInstanceOf(UnauthorizedError);
    expect((await service.list('ws_1'))[0]!.revokedAt).toBe('2026-01-02T03:04:05.000Z');
  });

  it('reports a revoke of an unknown key', async () => {
    const { service } = aKeyService();

    expect(await service.revoke('key_404')).toBe(false);
  });

  it('keeps an existing bootstrap key on restart, and refuses one that was revoked', async () => {
    const { service, keys } = aKeyService({ keyOfSecret: storedKey });

    const ensured = await service.ensure({ workspaceId: 'ws_1', name: 'bootstrap', scopes: ['*'], secret });
    await service.revoke('key_1');

    expect(ensured.keyId).toBe('key_1');
    expect(keys.keysByHash.size).toBe(1);
    await expect(service.ensure({ workspaceId: 'ws_1', name: 'bootstrap', scopes: ['*'], secret })).rejects.toThrow(/revoked/);
  });

  it('creates the bootstrap key with the chosen secret when there is none', async () => {
    const { service } = aKeyService();

    const ensured = await service.ensure({ workspaceId: 'ws_1', name: 'bootstrap', scopes: ['*'], secret });

    expect((await service.authenticate(`api-key ${secret}`)).principal.keyId).toBe(ensured.keyId);
  });
});
