import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  DeleteUsagePlanCommand,
} from '@aws-sdk/client-api-gateway';
import { defaultRateLimit, type ApiKeyRecord, type RateLimit } from '../api-key-store.ts';
import type { EdgeRateLimitRegistry } from '../api-keys.ts';
import { sdkLogger } from '../../infrastructure/logger.ts';

// Deployed, API Gateway enforces each Paperflow key's rate limit through a usage plan. The REST API
// takes its API key from the authorizer (`usageIdentifierKey`), never from the client, so the API
// Gateway key value is not a secret: it only tells API Gateway whose bucket a request drains.

/** Environment variables through which the admin CLI finds the deployed stack's usage plan. */
export const usagePlanEnvironment = {
  defaultUsagePlanId: 'PAPERFLOW_USAGE_PLAN_ID',
  restApiId: 'PAPERFLOW_REST_API_ID',
  stageName: 'PAPERFLOW_API_STAGE',
} as const;

export interface UsagePlanRegistryOptions {
  /** The stack's usage plan, throttled at the default rate limit and attached to the API stage. */
  defaultUsagePlanId: string;
  restApiId: string;
  stageName: string;
  /** The throttle of the default plan; keys with other limits get a usage plan of their own. */
  defaultRateLimit?: RateLimit;
}

export class UsagePlanRegistrationError extends Error {
  constructor(keyId: string, cause: unknown) {
    super(`Could not register API key ${keyId} with API Gateway usage plans: ${describe(cause)}`, { cause });
    this.name = 'UsagePlanRegistrationError';
  }
}

export class UsagePlanRegistry implements EdgeRateLimitRegistry {
  private readonly defaultRateLimit: RateLimit;

  constructor(
    private readonly client: APIGatewayClient,
    private readonly options: UsagePlanRegistryOptions,
  ) {
    this.defaultRateLimit = options.defaultRateLimit ?? defaultRateLimit;
  }

  async register(record: ApiKeyRecord): Promise<string> {
    // Undone on failure, so a half-registered key leaves nothing behind that counts against quotas.
    const undo: (() => Promise<unknown>)[] = [];
    try {
      const usageIdentifierKey = usageIdentifierKeyFor(record);
      const apiKey = await this.client.send(
        new CreateApiKeyCommand({
          name: `paperflow-${record.keyId}`,
          description: `Rate limit of Paperflow key ${record.keyId} (workspace ${record.workspaceId}).`,
          enabled: true,
          value: usageIdentifierKey,
        }),
      );
      const apiKeyId = requiredId(apiKey.id, 'CreateApiKey');
      undo.push(() => this.client.send(new DeleteApiKeyCommand({ apiKey: apiKeyId })));

      const usagePlanId = sameRateLimit(record.rateLimit, this.defaultRateLimit)
        ? this.options.defaultUsagePlanId
        : await this.createKeyUsagePlan(record, undo);
      await this.client.send(new CreateUsagePlanKeyCommand({ usagePlanId, keyId: apiKeyId, keyType: 'API_KEY' }));
      return usageIdentifierKey;
    } catch (error) {
      for (const step of undo.reverse()) await step().catch(() => undefined);
      throw new UsagePlanRegistrationError(record.keyId, error);
    }
  }

  private async createKeyUsagePlan(record: ApiKeyRecord, undo: (() => Promise<unknown>)[]): Promise<string> {
    const plan = await this.client.send(
      new CreateUsagePlanCommand({
        name: `paperflow-${record.keyId}`,
        description: `Own rate limit of Paperflow key ${record.keyId}.`,
        apiStages: [{ apiId: this.options.restApiId, stage: this.options.stageName }],
        throttle: { rateLimit: record.rateLimit.requestsPerSecond, burstLimit: record.rateLimit.burst },
      }),
    );
    const usagePlanId = requiredId(plan.id, 'CreateUsagePlan');
    undo.push(() => this.client.send(new DeleteUsagePlanCommand({ usagePlanId })));
    return usagePlanId;
  }
}

/**
 * The registry the admin CLI uses against a deployed stack: present only when all three variables
 * are set (the stack outputs UsagePlanId, RestApiId and StageName). Locally there is none, and the
 * local gateway enforces the limits itself.
 */
export function usagePlanRegistryFromEnvironment(
  environment: NodeJS.ProcessEnv,
  client: () => APIGatewayClient = () => new APIGatewayClient({ logger: sdkLogger }),
): UsagePlanRegistry | undefined {
  const defaultUsagePlanId = environment[usagePlanEnvironment.defaultUsagePlanId];
  const restApiId = environment[usagePlanEnvironment.restApiId];
  const stageName = environment[usagePlanEnvironment.stageName];
  const given = [defaultUsagePlanId, restApiId, stageName].filter(Boolean).length;
  if (given === 0) return undefined;
  if (!defaultUsagePlanId || !restApiId || !stageName) {
    throw new Error(
      `Set all of ${Object.values(usagePlanEnvironment).join(', ')} (from the stack outputs) or none of them.`,
    );
  }
  return new UsagePlanRegistry(client(), { defaultUsagePlanId, restApiId, stageName });
}

/** API Gateway needs at least 20 characters; the key id already makes the value unique. */
export function usageIdentifierKeyFor(record: Pick<ApiKeyRecord, 'keyId'>): string {
  return `pf_usage_${record.keyId}`;
}

function sameRateLimit(a: RateLimit, b: RateLimit): boolean {
  return a.requestsPerSecond === b.requestsPerSecond && a.burst === b.burst;
}

function requiredId(id: string | undefined, operation: string): string {
  if (!id) throw new Error(`${operation} returned no id.`);
  return id;
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}
