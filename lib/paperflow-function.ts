import { fileURLToPath } from 'node:url';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { resourceEnvironment } from '../src/infrastructure/resource-definitions.ts';
import type { QueueAccess, SigningKeyAccess, StateMachineAccess } from '../src/platform/resource-access.ts';

/** The repository root: handler paths in the route table are relative to it. */
export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface PaperflowFunctionProps {
  /** Module exporting `handler`, relative to the repository root (as in the route table). */
  handlerModule: string;
  description?: string;
  memorySize?: number;
  timeout?: Duration;
  /**
   * Packages that must stay `node_modules` (native addons, data files esbuild cannot inline). They
   * are left out of the bundle and copied beside it, with everything they depend on, from this
   * project's installed node_modules: synthesis stays offline and ships exactly the tested versions.
   * Their native addons are the ones npm installed here (linux-x64), so such a function runs on
   * x86_64 rather than the default arm64.
   */
  nodeModules?: string[];
  /** Overrides the choice above (arm64, or x86_64 with nodeModules). */
  architecture?: 'arm64' | 'x86_64';
}

// ESM bundles have no `require`; some CommonJS dependencies still call it (for Node built-ins).
export const createRequireBanner =
  "import { createRequire as paperflowCreateRequire } from 'node:module'; const require = paperflowCreateRequire(import.meta.url);";

/**
 * Every Paperflow Lambda function, with the defaults in one place: Node 22 on Graviton, X-Ray tracing,
 * a log group with a retention, and an esbuild ESM bundle built on this machine (no Docker). The AWS
 * SDK is bundled rather than taken from the runtime: deployed code runs the versions the tests ran,
 * and one minified module loads several times faster than the runtime's hundreds of SDK files.
 */
export class PaperflowFunction extends NodejsFunction {
  constructor(scope: Construct, id: string, props: PaperflowFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    const functionProps: NodejsFunctionProps = {
      entry: path.join(repositoryRoot, props.handlerModule),
      handler: 'handler',
      projectRoot: repositoryRoot,
      depsLockFilePath: path.join(repositoryRoot, 'package-lock.json'),
      runtime: Runtime.NODEJS_22_X,
      architecture: (props.architecture ?? (props.nodeModules ? 'x86_64' : 'arm64')) === 'x86_64' ? Architecture.X86_64 : Architecture.ARM_64,
      // API Gateway gives up after 29 s, so an API function running longer only wastes money.
      timeout: props.timeout ?? Duration.seconds(29),
      memorySize: props.memorySize ?? 1024,
      tracing: Tracing.ACTIVE,
      logGroup,
      // Stack traces in the logs point at the TypeScript sources, not the minified bundle.
      environment: { NODE_OPTIONS: '--enable-source-maps' },
      description: props.description ?? props.handlerModule,
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        mainFields: ['module', 'main'],
        banner: createRequireBanner,
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        bundleAwsSDK: true,
        forceDockerBundling: false,
        externalModules: [...credentialProvidersLambdaNeverLoads, ...(props.nodeModules ?? [])],
        ...(props.nodeModules
          ? {
              commandHooks: {
                beforeBundling: () => [],
                beforeInstall: () => [],
                afterBundling: (_inputDir: string, outputDir: string) => runtimeModuleCopyCommands(outputDir, props.nodeModules!),
              },
            }
          : {}),
      },
    };
    super(scope, id, functionProps);
  }
}

/**
 * Credential providers the SDK imports lazily, only when no credentials are in the environment. A
 * Lambda always has them there, so these are left out of bundles; should one ever be reached, it
 * resolves from the SDK copy the nodejs22.x runtime ships.
 */
export const credentialProvidersLambdaNeverLoads = [
  '@aws-sdk/credential-provider-sso',
  '@aws-sdk/credential-provider-ini',
  '@aws-sdk/credential-provider-process',
  '@aws-sdk/credential-provider-web-identity',
  '@aws-sdk/credential-provider-http',
  '@aws-sdk/credential-provider-login',
  '@aws-sdk/nested-clients',
  '@smithy/credential-provider-imds',
];

interface LockFile {
  packages: Record<string, { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> }>;
}

/**
 * The packages to ship for `modules`: each with its dependencies, as npm installed them here
 * (optional dependencies only where present, which keeps just this platform's native addons).
 */
export function runtimeModuleClosure(modules: readonly string[]): string[] {
  if (process.platform !== 'linux' || process.arch !== 'x64') {
    throw new Error('Functions with native runtime modules are synthesized on linux-x64, whose installed addons they ship.');
  }
  const lock = JSON.parse(readFileSync(path.join(repositoryRoot, 'package-lock.json'), 'utf8')) as LockFile;
  const closure = new Set<string>();
  const visit = (name: string, required: boolean) => {
    if (closure.has(name)) return;
    const entry = lock.packages[`node_modules/${name}`];
    const installed = existsSync(path.join(repositoryRoot, 'node_modules', name));
    if (!entry || !installed) {
      if (required) throw new Error(`${name} is not installed from package-lock.json; add it as a dependency and run npm ci.`);
      return;
    }
    closure.add(name);
    for (const dependency of Object.keys(entry.dependencies ?? {})) visit(dependency, false);
    for (const dependency of Object.keys(entry.optionalDependencies ?? {})) visit(dependency, false);
  };
  for (const name of modules) visit(name, true);
  return [...closure].sort();
}

/** Shell commands copying the closure of `modules` into the bundle folder's node_modules. */
export function runtimeModuleCopyCommands(outputDir: string, modules: readonly string[]): string[] {
  return runtimeModuleClosure(modules).map((name) => {
    const target = path.join(outputDir, 'node_modules', name);
    return `mkdir -p "${path.dirname(target)}" && cp -R "${path.join(repositoryRoot, 'node_modules', name)}" "${target}"`;
  });
}

export type TableAccess = 'read' | 'readWrite';
export type BucketAccess = 'read' | 'readWrite' | 'readWriteDelete';

/** Tells the function where the records table is and grants exactly the access asked for. */
export function bindRecordsTable(fn: NodejsFunction, table: ITable, access: TableAccess): void {
  fn.addEnvironment(resourceEnvironment.recordsTableName, table.tableName);
  if (access === 'read') table.grantReadData(fn);
  else table.grantReadWriteData(fn);
}

/**
 * Tells the function where the files bucket is. `readWrite` adds object writes (and pre-signed POST
 * uploads signed by the function); only `readWriteDelete` may delete, for the few functions that
 * remove objects (extraction deletes, refused uploads). The lifecycle rule expires the rest.
 */
export function bindFilesBucket(fn: NodejsFunction, bucket: IBucket, access: BucketAccess): void {
  fn.addEnvironment(resourceEnvironment.filesBucketName, bucket.bucketName);
  bucket.grantRead(fn);
  if (access !== 'read') bucket.grantPut(fn);
  if (access === 'readWriteDelete') bucket.grantDelete(fn);
}

/**
 * Tells the function the queue's URL. `send` may only send; `consume` may receive, delete and change
 * visibility (what Lambda's event source mapping does with the function's role), never send.
 */
export function bindQueue(fn: NodejsFunction, queue: IQueue, urlEnvironmentVariable: string, access: QueueAccess): void {
  fn.addEnvironment(urlEnvironmentVariable, queue.queueUrl);
  if (access === 'send' || access === 'consumeAndSend') queue.grantSendMessages(fn);
  if (access === 'consume' || access === 'consumeAndSend') queue.grantConsumeMessages(fn);
}

/**
 * Tells the function the state machine's ARN. `start` starts executions, `stop` stops them,
 * `describe` reads them, and `callback` answers the task tokens of `.waitForTaskToken` tasks; each
 * grants only its own calls.
 */
export function bindStateMachine(fn: NodejsFunction, stateMachine: IStateMachine, arnEnvironmentVariable: string, access: StateMachineAccess | readonly StateMachineAccess[]): void {
  fn.addEnvironment(arnEnvironmentVariable, stateMachine.stateMachineArn);
  for (const each of typeof access === 'string' ? [access] : access) {
    if (each === 'start') stateMachine.grantStartExecution(fn);
    else if (each === 'stop') stateMachine.grantExecution(fn, 'states:StopExecution');
    else if (each === 'describe') stateMachine.grantExecution(fn, 'states:DescribeExecution');
    else stateMachine.grantTaskResponse(fn);
  }
}

/**
 * Tells the function the signing key's ARN. `encrypt` may only generate data keys (storing a new
 * signing secret), `decrypt` may only decrypt them (signing deliveries); neither gets both.
 */
export function bindSigningKey(fn: NodejsFunction, key: IKey, access: SigningKeyAccess): void {
  fn.addEnvironment(resourceEnvironment.signingKeyId, key.keyArn);
  key.grant(fn, access === 'encrypt' ? 'kms:GenerateDataKey' : 'kms:Decrypt');
}
