import { mkdir } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { S3Event } from 'aws-lambda';
import { resolve } from 'node:path';
import { routes } from '../manifest/routes.ts';
import { resourceEnvironment } from '../infrastructure/resource-definitions.ts';
import { startEmulatorsOnOwnThread, type RunningEmulators } from './emulators.ts';
import { startLocalGateway, type RunningGateway } from './local-gateway.ts';
import { provisionResources, type ProvisionedResources } from './provision-resources.ts';
import { apiKeyService, workspaceStore } from '../auth/wiring.ts';
import { uploadedFileFinalizer } from '../files/routes.ts';
import { localStackEnvironmentNames, removeLocalStackConnection, writeLocalStackConnection } from './local-stack-connection.ts';
import { startLocalOrchestration, type RunningLocalOrchestration } from './local-extraction-orchestration.ts';

export interface LocalStackOptions {
  /** Where the emulators keep their data; a restart with the same folder keeps it. */
  dataDir: string;
  port: number;
  host?: string;
  /** When set, a key with scope `*` in workspace `ws_default` is made to exist (idempotent). */
  bootstrapApiKey?: string;
  /** An AWS-compatible endpoint (LocalStack, moto) to use instead of the embedded emulators. */
  externalEndpoint?: string;
  authorizerCacheSeconds?: number;
}

export interface RunningLocalStack {
  baseUrl: string;
  port: number;
  resources: ProvisionedResources;
  stop(): Promise<void>;
}

export const defaultWorkspace = { id: 'ws_default', name: 'default' };

const projectRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/**
 * Boots the whole service in this process: emulators (or an external endpoint), resources created
 * from the CDK stack's definitions, and the local gateway over the real handlers. Handlers find their
 * resources through the same environment variables the deployed functions get; that and the SDK
 * endpoints are the only things that differ from a deployment.
 */
export async function startLocalStack(options: LocalStackOptions): Promise<RunningLocalStack> {
  let emulators: RunningEmulators | undefined;
  const objectCreated = objectCreatedNotifications();
  await mkdir(options.dataDir, { recursive: true });
  process.env.AWS_REGION ??= 'us-east-1';
  if (options.externalEndpoint) {
    process.env.AWS_ENDPOINT_URL = options.externalEndpoint;
    process.env.AWS_ACCESS_KEY_ID ??= 'test';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  } else {
    // s3rver accepts only its own fixed credentials; the other emulators accept any.
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    emulators = await startEmulatorsOnOwnThread(options.dataDir, { onObjectCreated: (event) => objectCreated.deliver(event) });
    process.env.AWS_ENDPOINT_URL_DYNAMODB = emulators.endpoints.dynamodb;
    process.env.AWS_ENDPOINT_URL_S3 = emulators.endpoints.s3;
    process.env.AWS_ENDPOINT_URL_SQS = emulators.endpoints.sqs;
    // s3rver stores an aws-chunked body (the SDK's default for a streamed put, with a CRC32 trailer)
    // as it came, framing included; checksums are then sent only where an operation requires one.
    process.env.AWS_REQUEST_CHECKSUM_CALCULATION = 'WHEN_REQUIRED';
  }
  process.env.PAPERFLOW_S3_FORCE_PATH_STYLE = 'true';

  let gateway: RunningGateway | undefined;
  let orchestration: RunningLocalOrchestration | undefined;
  try {
    const resources = await provisionResources({ prefix: 'paperflow-local' });
    process.env[resourceEnvironment.recordsTableName] = resources.recordsTableName;
    process.env[resourceEnvironment.filesBucketName] = resources.filesBucketName;
    process.env[resourceEnvironment.webhookDeliveryQueueUrl] = resources.webhookDeliveryQueueUrl;
    orchestration = await startLocalOrchestration(projectRoot);

    if (options.bootstrapApiKey) {
      await workspaceStore().ensure({ ...defaultWorkspace, createdAt: new Date().toISOString() });
      await apiKeyService().ensure({ workspaceId: defaultWorkspace.id, name: 'bootstrap', scopes: ['*'], secret: options.bootstrapApiKey });
    }

    gateway = await startLocalGateway({
      routes,
      projectRoot,
      authorizerHandler: 'functions/auth/authorize-request.ts',
      port: options.port,
      host: options.host,
      authorizerCacheSeconds: options.authorizerCacheSeconds ?? 0,
    });
    const running = gateway;
    const runningOrchestration = orchestration;
    await writeLocalStackConnection(options.dataDir, {
      baseUrl: running.url,
      endpoints: { ...emulators?.endpoints },
      environment: Object.fromEntries(
        localStackEnvironmentNames.filter((name) => process.env[name] !== undefined).map((name) => [name, process.env[name]!]),
      ),
      pid: process.pid,
    });
    return {
      baseUrl: running.url,
      port: running.port,
      resources,
      async stop() {
        await removeLocalStackConnection(options.dataDir);
        await running.close();
        await runningOrchestration.close();
        await objectCreated.settled();
        await emulators?.stop();
      },
    };
  } catch (error) {
    await gateway?.close();
    await orchestration?.close();
    await emulators?.stop();
    throw error;
  }
}

/**
 * The bucket notification of the deployed stack, locally: each ObjectCreated event of the S3 emulator
 * under the finalizer's prefix invokes the same handler module S3 invokes deployed, in the background
 * as S3 does. `settled()` waits for invocations in flight so stopping never cuts one off.
 */
function objectCreatedNotifications() {
  const inFlight = new Set<Promise<void>>();
  return {
    deliver(event: S3Event) {
      const records = event.Records.filter((record) => record.s3.object.key.startsWith(uploadedFileFinalizer.objectKeyPrefix));
      if (records.length === 0) return;
      const invocation = import(pathToFileURL(resolve(projectRoot, uploadedFileFinalizer.handler)).href)
        .then((module: { handler: (event: S3Event) => Promise<void> }) => module.handler({ Records: records }))
        .catch((error: unknown) => console.error(JSON.stringify({ level: 'error', message: 'object-created handler failed', error: String(error) })))
        .finally(() => inFlight.delete(invocation));
      inFlight.add(invocation);
    },
    async settled() {
      await Promise.allSettled([...inFlight]);
    },
  };
}
