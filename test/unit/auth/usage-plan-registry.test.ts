import {
  APIGatewayClient,
  APIGatewayServiceException,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanCommand,
} from '@aws-sdk/client-api-gateway';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { defaultRateLimit, type ApiKeyRecord } from '../../../src/auth/api-key-store.ts';
import {
  UsagePlanRegistrationError,
  UsagePlanRegistry,
  usagePlanRegistryFromEnvironment,
} from '../../../src/auth/aws/api-gateway-usage-plan-registry.ts';

const gateway = mockClient(APIGatewayClient);
const stack = { defaultUsagePlanId: 'plan-default', restApiId: 'api123', stageName: 'prod' };

function anApiKeyRecord(overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    keyId: 'key_01JABCDEFGHJKMNPQRSTVWXYZ0',
    workspaceId: 'ws_01JABCDEFGHJKMNPQRSTVWXYZ0',
    name: 'integration',
    scopes: ['*'],
    displayPrefix: 'pf_live_abcd',
    rateLimit: defaultRateLimit,
    createdAt: '2026-11-21T08:00:00.000Z',
    ...overrides,
  };
}

function throttlingError(): APIGatewayServiceException {
  return new APIGatewayServiceException({
    name: 'TooManyRequestsException',
    message: 'Too Many Requests',
    $fault: 'client',
    $metadata: { httpStatusCode: 429 },
  });
}

describe('UsagePlanRegistry', () => {
  let registry: UsagePlanRegistry;

  beforeEach(() => {
    gateway.reset();
    registry = new UsagePlanRegistry(new APIGatewayClient({ region: 'eu-west-1' }), stack);
  });

  it('adds a key with the default rate limit to the stack usage plan', async () => {
    gateway.on(CreateApiKeyCommand).resolves({ id: 'apikey-1' });
    gateway.on(CreateUsagePlanKeyCommand).resolves({ id: 'apikey-1' });

    const usageIdentifierKey = await registry.register(anApiKeyRecord());

    expect(usageIdentifierKey).toBe('pf_usage_key_01JABCDEFGHJKMNPQRSTVWXYZ0');
    expect(gateway.commandCalls(CreateApiKeyCommand)[0]!.args[0].input).toMatchObject({
      value: usageIdentifierKey,
      enabled: true,
    });
    expect(gateway.commandCalls(CreateUsagePlanCommand)).toHaveLength(0);
    expect(gateway.commandCalls(CreateUsagePlanKeyCommand)[0]!.args[0].input).toEqual({
      usagePlanId: 'plan-default',
      keyId: 'apikey-1',
      keyType: 'API_KEY',
    });
  });

  it('gives a key with its own rate limit a usage plan of its own on the API stage', async () => {
    gateway.on(CreateApiKeyCommand).resolves({ id: 'apikey-2' });
    gateway.on(CreateUsagePlanCommand).resolves({ id: 'plan-own' });
    gateway.on(CreateUsagePlanKeyCommand).resolves({ id: 'apikey-2' });

    await registry.register(anApiKeyRecord({ rateLimit: { requestsPerSecond: 500, burst: 1000 } }));

    expect(gateway.commandCalls(CreateUsagePlanCommand)[0]!.args[0].input).toMatchObject({
      apiStages: [{ apiId: 'api123', stage: 'prod' }],
      throttle: { rateLimit: 500, burstLimit: 1000 },
    });
    expect(gateway.commandCalls(CreateUsagePlanKeyCommand)[0]!.args[0].input).toMatchObject({
      usagePlanId: 'plan-own',
      keyId: 'apikey-2',
    });
  });

  it('reports an AWS error with the key id and removes what it had created', async () => {
    gateway.on(CreateApiKeyCommand).resolves({ id: 'apikey-3' });
    gateway.on(CreateUsagePlanCommand).resolves({ id: 'plan-own' });
    gateway.on(CreateUsagePlanKeyCommand).rejects(throttlingError());
    gateway.on(DeleteUsagePlanCommand).resolves({});
    gateway.on(DeleteApiKeyCommand).resolves({});

    const registering = registry.register(anApiKeyRecord({ rateLimit: { requestsPerSecond: 5, burst: 5 } }));

    await expect(registering).rejects.toThrow(UsagePlanRegistrationError);
    await expect(registering).rejects.toThrow(/key_01JABCDEFGHJKMNPQRSTVWXYZ0.*TooManyRequestsException/);
    expect(gateway.commandCalls(DeleteUsagePlanCommand)[0]!.args[0].input).toEqual({ usagePlanId: 'plan-own' });
    expect(gateway.commandCalls(DeleteApiKeyCommand)[0]!.args[0].input).toEqual({ apiKey: 'apikey-3' });
  });

  it('keeps the original AWS error when the clean-up fails too', async () => {
    gateway.on(CreateApiKeyCommand).resolves({ id: 'apikey-4' });
    gateway.on(CreateUsagePlanKeyCommand).rejects(throttlingError());
    gateway.on(DeleteApiKeyCommand).rejects(new Error('network down'));

    const error = await registry.register(anApiKeyRecord()).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(UsagePlanRegistrationError);
    expect((error as Error).cause).toBeInstanceOf(APIGatewayServiceException);
  });

  it('fails when API Gateway answers without an id', async () => {
    gateway.on(CreateApiKeyCommand).resolves({});

    await expect(registry.register(anApiKeyRecord())).rejects.toThrow(/CreateApiKey returned no id/);
    expect(gateway.commandCalls(CreateUsagePlanKeyCommand)).toHaveLength(0);
  });
});

describe('usagePlanRegistryFromEnvironment', () => {
  const fakeClient = () => new APIGatewayClient({ region: 'eu-west-1' });

  it('returns no registry when the stack variables are absent (local runs)', () => {
    expect(usagePlanRegistryFromEnvironment({}, fakeClient)).toBeUndefined();
  });

  it('builds a registry from the stack outputs', () => {
    const environment = { PAPERFLOW_USAGE_PLAN_ID: 'plan', PAPERFLOW_REST_API_ID: 'api', PAPERFLOW_API_STAGE: 'prod' };

    expect(usagePlanRegistryFromEnvironment(environment, fakeClient)).toBeInstanceOf(UsagePlanRegistry);
  });

  it('refuses a partial configuration rather than silently skipping rate limits', () => {
    expect(() => usagePlanRegistryFromEnvironment({ PAPERFLOW_USAGE_PLAN_ID: 'plan' }, fakeClient)).toThrow(
      /PAPERFLOW_REST_API_ID/,
    );
  });
});
