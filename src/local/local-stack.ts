import { overrideHostResolver, type HostResolver } from '../outbound/outbound-fetch.ts';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import { apiKeyAuthorizer, routes } from '../manifest/routes.ts';
import { resources as manifestResources } from '../manifest/resources.ts';
import { resourcesOfKind, theResource, type ResourceDefinition } from '../platform/resource-table.ts';
import { s3rverCredentials, type RunningEmulators } from './emulator-endpoints.ts';
import { startEmulatorsOnOwnThread } from './emulators-on-own-thread.ts';
import { defaultRequestReadTimeoutMs, startLocalGateway, type RunningGateway } from './local-gateway.ts';
import { provisionResources, provisionSigningKey, type ProvisionedResources } from './provision-resources.ts';
import { ensureLocalKeyFile, localKeyFileEnvironment } from '../infrastructure/local-file-data-keys.ts';
import { apiKeyService, workspaceStore } from '../composition/auth.ts';
import { configurationFor, withConfiguration } from '../composition/configuration.ts';
import { triggers } from '../manifest/triggers.ts';
import type { TriggerDefinition } from '../platform/trigger-table.ts';
import { createLocalInvoker } from './local-invoker.ts';
import { terminateProcessOcrPool } from '../extractions/process-ocr-pool.ts';
import { localStackEnvironmentNames, removeLocalStackConnection, writeLocalStackConnection } from './local-stack-connection.ts';
import { isWellFormedApiKey } from '../auth/api-key-secrets.ts';
import { lockDataDirectory, type DataDirectoryLock } from './data-directory-lock.ts';
import { LocalStackStartError } from './local-stack-errors.ts';
import { consoleSite } from './console-site.ts';
import { localBucketNotifications, startLocalTriggers, type RunningLocalTriggers } from './local-triggers.ts';
import { keptEndpointNames, portOf, readKeptPorts, writeKeptPorts, type KeptPorts } from './kept-ports.ts';
import { logger } from '../infrastructure/logger.ts';

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
  /** Trigger rows served besides the manifest's (tests add consumers and schedules of their own). */
  additionalTriggers?: readonly TriggerDefinition[];
  /**
   * The tables, buckets, queues, state machines and keys to provision; the resource table
   * (src/manifest/resources.ts) unless a test extends it (a queue of its own, with its consumer in
   * `additionalTriggers`).
   */
  resources?: readonly ResourceDefinition[];
  /** Names of manifest rows not served (tests that read the delivery queue themselves leave its consumer out). */
  omittedTriggers?: readonly string[];
  /**
   * Tests only: answers DNS for the outbound fetches of this process (document downloads, webhook
   * deliveries) instead of the system resolver, so SSRF tests can point names at addresses of their
   * choosing. The fetches themselves, and the guard, are the production ones.
   */
  resolveHost?: HostResolver;
  /**
   * Tests only: false serves the state machines without checking their definitions first (about half
   * a second of a core per start). test/unit checks both ASL files, and `npm start` keeps the check.
   */
  validateStateMachineDefinitions?: boolean;
}

export interface RunningLocalStack {
  baseUrl: string;
  port: number;
  resources: ProvisionedResources;
  /** CPU time of the embedded emulators' thread so far; undefined with an external endpoint. */
  emulatorThreadCpuUsage(): Promise<NodeJS.CpuUsage | undefined>;
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
  if (options.bootstrapApiKey !== undefined && !isWellFormedApiKey(options.bootstrapApiKey)) {
    throw new LocalStackStartError('PAPERFLOW_BOOTSTRAP_API_KEY must look like pf_live_<16 to 128 of A-Z a-z 0-9 _ ->.');
  }
  await mkdir(options.dataDir, { recursive: true });
  const dataDirectoryLock = await lockDataDirectory(options.dataDir);
  process.env.AWS_REGION ??= 'us-east-1';
  try {
    return await startLockedLocalStack(options, dataDirectoryLock);
  } catch (error) {
    await dataDirectoryLock.release();
    throw error;
  }
}

async function startLockedLocalStack(options: LocalStackOptions, dataDirectoryLock: DataDirectoryLock): Promise<RunningLocalStack> {
  let emulators: RunningEmulators | undefined;
  const servedTriggers = [...triggers.filter((row) => !options.omittedTriggers?.includes(row.name)), ...(options.additionalTriggers ?? [])];
  const resourceTable = options.resources ?? manifestResources;
  const invoker = createLocalInvoker(projectRoot, resourceTable);
  if (options.resolveHost) overrideHostResolver(options.resolveHost);
  const objectCreated = localBucketNotifications(servedTriggers, invoker);
  // The emulators listen where they did at the last start, so what names their ports stays valid.
  const keptPorts = await readKeptPorts(options.dataDir);
  if (options.externalEndpoint) {
    process.env.AWS_ENDPOINT_URL = options.externalEndpoint;
    process.env.AWS_ACCESS_KEY_ID ??= 'test';
    process.env.AWS_SECRET_ACCESS_KEY ??= 'test';
  } else {
    process.env.AWS_ACCESS_KEY_ID = s3rverCredentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = s3rverCredentials.secretAccessKey;
    delete process.env.AWS_SESSION_TOKEN;
    delete process.env.AWS_PROFILE;
    emulators = await startEmulatorsOnOwnThread(options.dataDir, { onObjectCreated: (event) => objectCreated.deliver(event) }, keptPorts);
    process.env.AWS_ENDPOINT_URL_DYNAMODB = emulators.endpoints.dynamodb;
    process.env.AWS_ENDPOINT_URL_S3 = emulators.endpoints.s3;
    process.env.AWS_ENDPOINT_URL_SQS = emulators.endpoints.sqs;
    // s3rver stores an aws-chunked body (the SDK's default for a streamed put, with a CRC32 trailer)
    // as it came, framing included; checksums are then sent only where an operation requires one.
    process.env.AWS_REQUEST_CHECKSUM_CALCULATION = 'WHEN_REQUIRED';
  }
  process.env.PAPERFLOW_S3_FORCE_PATH_STYLE = 'true';

  let gateway: RunningGateway | undefined;
  let orchestration: RunningLocalTriggers | undefined;
  try {
    const resources = await provisionResources({ prefix: 'paperflow-local' }, resourceTable);
    // The process's environment names every resource; each invocation sees only its row's share
    // (the local invoker), as each deployed function's environment holds only that. What runs outside
    // an invocation (the bootstrap key below, tests, the admin CLI through local-stack.json) reads all.
    for (const [variable, value] of Object.entries(resources.environment)) process.env[variable] = value;
    await useSigningKey(options, theResource(resourceTable, 'key').environmentVariable);
    orchestration = await startLocalTriggers({
      projectRoot,
      invoker,
      stateMachines: resourcesOfKind(resourceTable, 'stateMachine'),
      triggers: servedTriggers,
      queueUrls: resources.queueUrls,
      // In the data folder, beside the data the executions work on: a restart resumes what was running.
      executionJournalDirectory: join(options.dataDir, 'step-functions'),
      ...(keptPorts.sfn ? { stepFunctionsPort: keptPorts.sfn } : {}),
      ...(options.validateStateMachineDefinitions === false ? { validateStateMachineDefinitions: false } : {}),
    });
    await keepPorts(options.dataDir, keptPorts, {
      ...(emulators ? { dynamodb: portOf(emulators.endpoints.dynamodb), s3: portOf(emulators.endpoints.s3), sqs: portOf(emulators.endpoints.sqs) } : {}),
      sfn: portOf(orchestration.stepFunctions.endpoint),
    });
    // Once the endpoint, the schedules and the consumers their tasks use are up, as a deployed stack's
    // executions carry on running across a deploy.
    await orchestration.stepFunctions.resumeRecordedExecutions();

    if (options.bootstrapApiKey) {
      const bootstrapKey = options.bootstrapApiKey;
      // With what the admin CLI's `keys create` is given: the records table.
      await withConfiguration(configurationFor({ recordsTable: 'readWrite' }, resourceTable), async () => {
        await workspaceStore().ensure({ ...defaultWorkspace, createdAt: new Date().toISOString() });
        await apiKeyService().ensure({ workspaceId: defaultWorkspace.id, name: 'bootstrap', scopes: ['*'], secret: bootstrapKey });
      });
    }

    gateway = await startLocalGateway({
      routes,
      projectRoot,
      authorizer: apiKeyAuthorizer,
      invoker,
      port: options.port,
      host: options.host,
      authorizerCacheSeconds: options.authorizerCacheSeconds ?? 0,
      requestReadTimeoutMs: positiveSecondsFromEnvironment('PAPERFLOW_REQUEST_READ_TIMEOUT_SECONDS', defaultRequestReadTimeoutMs / 1000) * 1000,
      // Documents' pre-signed URLs point at the S3 endpoint: the console's page may fetch from there.
      consoleSite: consoleSite({ documentOrigins: [new URL(process.env.AWS_ENDPOINT_URL_S3 ?? options.externalEndpoint ?? 'https://s3.amazonaws.com').origin] }),
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EADDRINUSE') throw error;
      throw new LocalStackStartError(`Port ${options.port} on ${options.host ?? '127.0.0.1'} is already in use: stop what listens there, or set PORT to another port.`);
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
      emulatorThreadCpuUsage: async () => (await emulators?.threadCpuUsage?.()) ?? undefined,
      async stop() {
        await removeLocalStackConnection(options.dataDir);
        await running.close();
        await runningOrchestration.close();
        await objectCreated.settled();
        // The extract task ran in this process: its OCR workers are threads of it.
        await terminateProcessOcrPool();
        await emulators?.stop();
        if (options.resolveHost) overrideHostResolver(undefined);
        await dataDirectoryLock.release();
      },
    };
  } catch (error) {
    await gateway?.close();
    await orchestration?.close();
    await emulators?.stop();
    if (options.resolveHost) overrideHostResolver(undefined);
    throw error;
  }
}

/**
 * Writes the ports listened on for the next start, and says which kept port was taken by something
 * else: what was minted for it (a pre-signed `contentUrl`, an upload form) no longer reaches the stack.
 */
async function keepPorts(dataDir: string, kept: KeptPorts, listening: KeptPorts): Promise<void> {
  for (const name of keptEndpointNames) {
    const was = kept[name];
    const now = listening[name];
    if (was === undefined || now === undefined || was === now) continue;
    logger.warn(`the ${name} endpoint's port ${was}, kept from the last start, is in use by another program; it listens on ${now} now, and URLs minted for ${was} (contentUrl, upload forms) no longer work`, {
      endpoint: name,
      keptPort: was,
      port: now,
    });
  }
  await writeKeptPorts(dataDir, { ...kept, ...listening });
}

/**
 * Signing secrets are encrypted under a KMS key where there is one (LocalStack and moto serve KMS),
 * else under a key file created once in the data folder, so secrets outlive a restart as the data does.
 */
async function useSigningKey(options: LocalStackOptions, keyIdVariable: string): Promise<void> {
  if (options.externalEndpoint) {
    process.env[keyIdVariable] = await provisionSigningKey({ prefix: 'paperflow-local' });
    delete process.env[localKeyFileEnvironment];
    return;
  }
  const keyFile = join(options.dataDir, 'signing-secrets.key');
  await ensureLocalKeyFile(keyFile);
  process.env[localKeyFileEnvironment] = keyFile;
  delete process.env[keyIdVariable];
}

/** A local setting in seconds: a positive number, else the default. */
function positiveSecondsFromEnvironment(variable: string, fallback: number): number {
  const configured = Number(process.env[variable]);
  return Number.isFinite(configured) && configured > 0 ? configured : fallback;
}
