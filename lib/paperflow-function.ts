import { fileURLToPath } from 'node:url';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { resourceEnvironment } from '../src/infrastructure/resource-definitions.ts';

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
   * are left out of the bundle and installed beside it for linux-arm64 at the root lock file's
   * versions, so the native addons match the Lambda architecture rather than this machine's.
   */
  nodeModules?: string[];
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
      architecture: Architecture.ARM_64,
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
                afterBundling: (_inputDir: string, outputDir: string) =>
                  scope.node.tryGetContext(skipRuntimeModuleInstallContext) === true ? [] : [runtimeModuleInstallCommand(outputDir, props.nodeModules!)],
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

/** Context flag for template-only synths (the infra tests): skip downloading runtime modules. */
export const skipRuntimeModuleInstallContext = 'paperflow:skipRuntimeModuleInstall';

/** `npm install` of exact versions from the root lock file, for the linux-arm64 Lambda runtime. */
export function runtimeModuleInstallCommand(outputDir: string, modules: readonly string[]): string {
  const lock = JSON.parse(readFileSync(path.join(repositoryRoot, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version?: string }>;
  };
  const specs = modules.map((name) => {
    const version = lock.packages[`node_modules/${name}`]?.version;
    if (!version) throw new Error(`${name} is not in package-lock.json; add it as a dependency.`);
    return `${name}@${version}`;
  });
  // The bundle folder gets a package.json of its own first: without one npm would walk up and install
  // into (and prune) the project's node_modules.
  return [
    `cd "${outputDir}"`,
    `printf '{"private":true}' > package.json`,
    `npm install --prefix "${outputDir}" --no-package-lock --omit=dev --ignore-scripts --no-audit --no-fund --cpu=arm64 --os=linux --libc=glibc ${specs.join(' ')}`,
  ].join(' && ');
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

/** Lets the function schedule webhook delivery attempts; consumers get an event source instead. */
export function bindDeliveryQueue(fn: NodejsFunction, queue: IQueue): void {
  fn.addEnvironment(resourceEnvironment.webhookDeliveryQueueUrl, queue.queueUrl);
  queue.grantSendMessages(fn);
}
