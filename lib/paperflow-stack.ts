import path from 'node:path';
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DefinitionBody, LogLevel, StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { routes as publicRoutes } from '../src/manifest/routes.ts';
import { apiBasePath, type RouteDefinition } from '../src/platform/route-table.ts';
import { acknowledgeGrantWildcards, arnTokenOf, repositoryRoot } from './paperflow-function.ts';
import { PaperflowStorage } from './paperflow-storage.ts';
import { PublicApi } from './public-api.ts';
import { ReviewConsole } from './review-console.ts';
import { Triggers } from './triggers.ts';
import { triggers as manifestTriggers } from '../src/manifest/triggers.ts';
import { resources as manifestResources } from '../src/manifest/resources.ts';
import { resourcesOfKind, type ResourceDefinition } from '../src/platform/resource-table.ts';
import type { TriggerDefinition } from '../src/platform/trigger-table.ts';
import { acknowledgeNagFinding } from './nag-acknowledgements.ts';

export interface PaperflowStackProps extends StackProps {
  /** The operations to deploy; the route table unless a test narrows it. */
  routes?: readonly RouteDefinition[];
  /** The non-HTTP entry points to deploy; the trigger table unless a test narrows or extends it. */
  triggers?: readonly TriggerDefinition[];
  /** The tables, buckets, queues, state machines and keys; the resource table unless a test extends it. */
  resources?: readonly ResourceDefinition[];
  stageName?: string;
  authorizerCacheTtl?: Duration;
}

export interface DefinitionFileStateMachineProps {
  /** The ASL file, relative to the repository root, e.g. `statemachines/workflow-run.asl.json`. */
  definitionFile: string;
  /** Values for the file's `${Placeholders}`: function ARNs, table names, queue URLs. */
  substitutions: Record<string, string>;
  /** Task functions the machine calls; each gets invoke permission for it. */
  invokedFunctions: IFunction[];
  /** A fixed name, for a machine its own tasks must reach (see lib/triggers.ts); else CloudFormation names it. */
  stateMachineName?: string;
}

/** The outputs the admin CLI and operators read after a deploy (docs/deployment.md). */
export const stackOutputNames = [
  'ApiUrl',
  'RestApiId',
  'StageName',
  'UsagePlanId',
  'TableName',
  'BucketName',
  'DeliveryQueueUrl',
  'ConsoleUrl',
] as const;

export class PaperflowStack extends Stack {
  readonly storage: PaperflowStorage;
  readonly publicApi: PublicApi;
  readonly triggers: Triggers;
  readonly reviewConsole: ReviewConsole;

  constructor(scope: Construct, id: string, props: PaperflowStackProps = {}) {
    super(scope, id, { description: 'Paperflow: document extraction, workflows and webhooks', ...props });

    const resources = props.resources ?? manifestResources;
    this.storage = new PaperflowStorage(this, 'Storage', resources);
    this.triggers = new Triggers(this, 'Triggers', {
      stateMachines: resourcesOfKind(resources, 'stateMachine'),
      triggers: props.triggers ?? manifestTriggers,
      resources,
      storage: this.storage,
    });
    this.publicApi = new PublicApi(this, 'PublicApi', {
      routes: props.routes ?? publicRoutes,
      storage: this.storage,
      resources,
      stateMachines: this.triggers.stateMachines,
      stageName: props.stageName ?? 'prod',
      authorizerCacheTtl: props.authorizerCacheTtl ?? Duration.seconds(60),
    });

    this.reviewConsole = new ReviewConsole(this, 'ReviewConsole', {
      restApi: this.publicApi.restApi,
      filesBucket: this.storage.filesBucket,
      accessLogsBucket: this.storage.accessLogsBucket,
    });

    acknowledgeCdkHelperFunctions(this);

    const { restApi, defaultUsagePlan } = this.publicApi;
    const outputs: Record<(typeof stackOutputNames)[number], { value: string; description: string }> = {
      ApiUrl: { value: restApi.urlForPath(apiBasePath), description: 'Base URL of the public API v1' },
      RestApiId: { value: restApi.restApiId, description: 'PAPERFLOW_REST_API_ID for the admin CLI' },
      StageName: { value: restApi.deploymentStage.stageName, description: 'PAPERFLOW_API_STAGE for the admin CLI' },
      UsagePlanId: { value: defaultUsagePlan.usagePlanId, description: 'PAPERFLOW_USAGE_PLAN_ID for the admin CLI' },
      TableName: { value: this.storage.recordsTable.tableName, description: 'PAPERFLOW_TABLE_NAME' },
      BucketName: { value: this.storage.filesBucket.bucketName, description: 'PAPERFLOW_BUCKET_NAME' },
      DeliveryQueueUrl: { value: this.storage.queueNamed('webhookDelivery').queueUrl, description: 'PAPERFLOW_DELIVERY_QUEUE_URL' },
      ConsoleUrl: {
        value: `https://${this.reviewConsole.distribution.distributionDomainName}/console/`,
        description: 'The review console (its API calls go to the same origin, forwarded to the REST API)',
      },
    };
    for (const [name, output] of Object.entries(outputs)) new CfnOutput(this, name, output);
  }

  /**
   * A state machine whose ASL file in `statemachines/` is the source of truth: CDK only fills the
   * file's `${Placeholders}` through definition substitutions and grants invoke on its functions.
   */
  addStateMachineFromDefinitionFile(id: string, props: DefinitionFileStateMachineProps): StateMachine {
    const stateMachine = new StateMachine(this, id, {
      definitionBody: DefinitionBody.fromFile(path.resolve(repositoryRoot, props.definitionFile)),
      definitionSubstitutions: props.substitutions,
      ...(props.stateMachineName ? { stateMachineName: props.stateMachineName } : {}),
      tracingEnabled: true,
      logs: {
        destination: new LogGroup(this, `${id}Logs`, {
          retention: RetentionDays.ONE_MONTH,
          removalPolicy: RemovalPolicy.DESTROY,
        }),
        // Every state transition, without the states' input and output: those carry documents' fields
        // and webhook payloads, which stay in the table and the bucket, encrypted.
        level: LogLevel.ALL,
        includeExecutionData: false,
      },
    });
    for (const fn of props.invokedFunctions) fn.grantInvoke(stateMachine);
    acknowledgeGrantWildcards(
      stateMachine.role,
      props.invokedFunctions.map((fn) => `Resource::${arnTokenOf(fn)}:*`),
      'Invoking a task function by ARN or by any version or alias of it (CDK\'s grantInvoke names both): the functions of this machine only.',
    );
    acknowledgeGrantWildcards(
      stateMachine.role,
      ['Resource::*'],
      'X-Ray tracing (xray:PutTraceSegments, PutTelemetryRecords, GetSamplingRules, GetSamplingTargets) and CloudWatch Logs vended delivery (logs:CreateLogDelivery and friends) support no resource-level permissions.',
    );
    return stateMachine;
  }
}

/**
 * CDK's own singleton function (the bucket-notification helper that configures S3 notifications at
 * deploy time) comes with CDK's role, which uses a managed policy; nothing of ours to change.
 */
function acknowledgeCdkHelperFunctions(stack: Stack): void {
  for (const child of stack.node.children) {
    if (!child.node.id.startsWith('BucketNotificationsHandler')) continue;
    const reason =
      'CDK\'s BucketNotificationsHandler singleton, which only calls s3:PutBucketNotification while deploying: its role and its policies are CDK\'s, not this project\'s.';
    acknowledgeNagFinding(child, 'AwsSolutions-IAM4', reason, {
      applyToChildren: true,
      appliesTo: ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole'],
    });
  }
}
