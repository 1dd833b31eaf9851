import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import {
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  RequestAuthorizer,
  RequestValidator,
  RestApi,
  type IResource,
  type MethodOptions,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { acknowledgeNagFinding } from './nag-acknowledgements.ts';
import { defaultRateLimit } from '../src/auth/api-key-store.ts';
import { apiBasePath, type RouteDefinition } from '../src/platform/route-table.ts';
import { addGatewayErrorResponses } from './gateway-error-responses.ts';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { StateMachineName } from '../src/platform/resource-access.ts';
import { PaperflowFunction } from './paperflow-function.ts';
import type { PaperflowStorage } from './paperflow-storage.ts';
import { bindResourceAccess } from './resource-access.ts';
import { apiKeyAuthorizer } from '../src/manifest/routes.ts';
import type { ResourceDefinition } from '../src/platform/resource-table.ts';

export interface PublicApiProps {
  routes: readonly RouteDefinition[];
  storage: PaperflowStorage;
  /** The resource table: the variable through which each granted resource is named. */
  resources: readonly ResourceDefinition[];
  /** For routes whose access names a state machine (starting extractions, for one). */
  stateMachines: Partial<Record<StateMachineName, IStateMachine>>;
  stageName: string;
  /** How long API Gateway reuses an authorizer answer per Authorization header (revocation delay). */
  authorizerCacheTtl: Duration;
  /** Whether this stack sets API Gateway's account CloudWatch role (default true; false where another stack does). */
  manageAccountCloudWatchRole?: boolean;
}

/**
 * Stage-wide throttle for all keys together, above any one key's usage plan (25/s, burst 50): it caps
 * what the account's functions and table can be asked for, whoever asks.
 */
export const stageThrottle = { rateLimit: 500, burstLimit: 1000 } as const;

/** One JSON line per request in the access log: who, what, how it ended, and how long it took. */
export const accessLogFields = AccessLogFormat.custom(
  JSON.stringify({
    requestId: '$context.requestId',
    extendedRequestId: '$context.extendedRequestId',
    requestTime: '$context.requestTime',
    httpMethod: '$context.httpMethod',
    resourcePath: '$context.resourcePath',
    status: '$context.status',
    responseLength: '$context.responseLength',
    responseLatency: '$context.responseLatency',
    integrationLatency: '$context.integrationLatency',
    errorType: '$context.error.responseType',
    workspaceId: '$context.authorizer.workspaceId',
    keyId: '$context.authorizer.keyId',
    sourceIp: '$context.identity.sourceIp',
    userAgent: '$context.identity.userAgent',
  }),
);

export const authorizerHandlerModule = apiKeyAuthorizer.handler;
export const unmatchedRouteHandlerModule = 'functions/platform/answer-unmatched-route.ts';

/**
 * The REST API, generated from the route table: one Lambda per row under `/api/public/v1`, the REQUEST
 * authorizer on every non-public row, 404/405 answers for everything else, the error envelope for
 * API Gateway's own answers, and per-key rate limits through usage plans.
 */
export class PublicApi extends Construct {
  readonly restApi: RestApi;
  /** Absent while every route is public: an authorizer with nothing to guard is not deployed. */
  authorizerFunction?: PaperflowFunction;
  private authorizer?: RequestAuthorizer;
  readonly unmatchedRouteFunction: PaperflowFunction;
  readonly defaultUsagePlan: UsagePlan;
  readonly accessLogGroup: LogGroup;
  /** On every route method; what it can check without models is the declared request parameters. */
  readonly requestValidator: RequestValidator;
  /** The function serving each route, by operationId. */
  readonly routeFunctions = new Map<string, PaperflowFunction>();
  private readonly storage: PaperflowStorage;
  private readonly resources: readonly ResourceDefinition[];
  private readonly stateMachines: Partial<Record<StateMachineName, IStateMachine>>;
  private readonly authorizerCacheTtl: Duration;

  constructor(scope: Construct, id: string, props: PublicApiProps) {
    super(scope, id);
    this.storage = props.storage;
    this.resources = props.resources;
    this.stateMachines = props.stateMachines;
    this.authorizerCacheTtl = props.authorizerCacheTtl;

    this.accessLogGroup = new LogGroup(this, 'AccessLogs', { retention: RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: 'paperflow-public-api',
      description: 'Paperflow public API v1',
      endpointTypes: [EndpointType.REGIONAL],
      // Multipart uploads and raw files reach the functions as base64 instead of mangled text.
      binaryMediaTypes: ['multipart/form-data', 'application/octet-stream'],
      // The authorizer names the caller's API Gateway key (usageIdentifierKey); clients never send one.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // Access and execution logs need API Gateway's account-wide CloudWatch role (one per account and
      // region). The stack sets it, and keeps it on delete because other APIs of the account use it too;
      // an account whose role another stack already manages sets apiGatewayCloudWatchRole: false.
      cloudWatchRole: props.manageAccountCloudWatchRole ?? true,
      cloudWatchRoleRemovalPolicy: RemovalPolicy.RETAIN,
      deployOptions: {
        stageName: props.stageName,
        tracingEnabled: true,
        metricsEnabled: true,
        accessLogDestination: new LogGroupLogDestination(this.accessLogGroup),
        accessLogFormat: accessLogFields,
        // Errors only, and never request or response bodies: those carry documents and secrets.
        loggingLevel: MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        throttlingRateLimit: stageThrottle.rateLimit,
        throttlingBurstLimit: stageThrottle.burstLimit,
      },
    });
    this.requestValidator = this.restApi.addRequestValidator('RequestValidator', {
      requestValidatorName: 'paperflow-parameters-and-body',
      validateRequestBody: true,
      validateRequestParameters: true,
    });
    // The stack's ApiUrl output (with the base path) replaces RestApi's own stage-root Endpoint output.
    this.restApi.node.tryRemoveChild('Endpoint');
    addGatewayErrorResponses(this.restApi);

    this.unmatchedRouteFunction = new PaperflowFunction(this, 'AnswerUnmatchedRoute', {
      handlerModule: unmatchedRouteHandlerModule,
      description: '404 and 405 answers from the route table',
      memorySize: 256,
      timeout: Duration.seconds(10),
    });
    const unmatchedRoute = new LambdaIntegration(this.unmatchedRouteFunction, { allowTestInvoke: false });

    const resourcesByPath = new Map<string, IResource>();
    for (const route of props.routes) {
      const resource = this.restApi.root.resourceForPath(`${apiBasePath}${route.path}`);
      resourcesByPath.set(route.path, resource);
      const fn = this.routeFunction(route);
      const integration = new LambdaIntegration(fn, { allowTestInvoke: false });
      const methodOptions: MethodOptions =
        route.scope === 'public'
          ? { authorizationType: AuthorizationType.NONE, operationName: route.operationId, requestValidator: this.requestValidator }
          : {
              authorizationType: AuthorizationType.CUSTOM,
              authorizer: this.requestAuthorizer(),
              apiKeyRequired: true,
              operationName: route.operationId,
              requestValidator: this.requestValidator,
            };
      const methods = [resource.addMethod(route.method, integration, methodOptions)];
      // HEAD is GET without the body: the GET function answers it, and API Gateway sends no body for HEAD.
      if (route.method === 'GET') methods.push(resource.addMethod('HEAD', integration, { ...methodOptions, operationName: `${route.operationId}Head` }));
      if (route.scope === 'public') {
        for (const method of methods) {
          acknowledgeNagFinding(method, 'AwsSolutions-APIG4', `Public by the API contract (${route.operationId} has scope "public"): it serves no workspace data.`);
        }
      }
    }
    // API Gateway prefers a resource's explicit methods; every other method lands on ANY and gets 405
    // with Allow from the route table. Unknown paths below the base path get 404 the same way; unknown
    // paths elsewhere (and below a known resource) get the MISSING_AUTHENTICATION_TOKEN response, 404.
    const unmatchedReason =
      'Answers only 404 or 405 (with Allow, from the route table) and reads no data: the caller needs no key to learn that no operation exists there.';
    for (const resource of resourcesByPath.values()) {
      acknowledgeNagFinding(resource.addMethod('ANY', unmatchedRoute, { authorizationType: AuthorizationType.NONE }), 'AwsSolutions-APIG4', unmatchedReason);
    }
    const proxy = this.restApi.root
      .resourceForPath(apiBasePath)
      .addProxy({ anyMethod: true, defaultIntegration: unmatchedRoute, defaultMethodOptions: { authorizationType: AuthorizationType.NONE } });
    acknowledgeNagFinding(proxy.anyMethod!, 'AwsSolutions-APIG4', unmatchedReason);

    this.defaultUsagePlan = this.restApi.addUsagePlan('DefaultUsagePlan', {
      name: 'paperflow-default',
      description: 'Per-key default rate limit; keys with their own limit get a usage plan of their own.',
      throttle: { rateLimit: defaultRateLimit.requestsPerSecond, burstLimit: defaultRateLimit.burst },
      apiStages: [{ api: this.restApi, stage: this.restApi.deploymentStage }],
    });
    // Last: an acknowledgement reaches only the children that exist when it is made.
    acknowledgeApiFindings(this.restApi);
  }

  private requestAuthorizer(): RequestAuthorizer {
    if (this.authorizer) return this.authorizer;
    this.authorizerFunction = new PaperflowFunction(this, 'AuthorizeRequest', {
      handlerModule: authorizerHandlerModule,
      description: 'REQUEST authorizer: API key to workspace, scopes and usage plan key',
      timeout: Duration.seconds(10),
    });
    bindResourceAccess(this.authorizerFunction, apiKeyAuthorizer.access, { table: this.resources, storage: this.storage, stateMachines: this.stateMachines });
    this.authorizer = new RequestAuthorizer(this, 'ApiKeyAuthorizer', {
      handler: this.authorizerFunction,
      identitySources: [IdentitySource.header('Authorization')],
      // Safe to cache per key: the policy lists every route the key's scopes allow, not just this one.
      resultsCacheTtl: this.authorizerCacheTtl,
    });
    return this.authorizer;
  }

  private routeFunction(route: RouteDefinition): PaperflowFunction {
    const fn = new PaperflowFunction(this, `${pascalCase(route.operationId)}Function`, {
      handlerModule: route.handler,
      description: `${route.method} ${apiBasePath}${route.path} (${route.operationId})`,
    });
    bindResourceAccess(fn, route.access, { table: this.resources, storage: this.storage, stateMachines: this.stateMachines });
    this.routeFunctions.set(route.operationId, fn);
    return fn;
  }
}

/** Findings that concern the API as designed rather than one resource of it (docs/deployment.md). */
function acknowledgeApiFindings(restApi: RestApi): void {
  acknowledgeNagFinding(
    restApi,
    'AwsSolutions-COG4',
    'Clients authenticate with API keys (spec: Authorization: Bearer pf_...), checked by the REQUEST Lambda authorizer against the hashed keys in the table; there are no end-user identities for a Cognito user pool to hold.',
    { applyToChildren: true },
  );
  acknowledgeNagFinding(
    restApi,
    'AwsSolutions-APIG3',
    'A WAF web ACL is an account-level choice (it costs per ACL and per request, and rules depend on the account\'s traffic); per-key usage plans, the stage throttle and the authorizer limit abuse. Attach a web ACL to the stage after deploying if wanted.',
    { applyToChildren: true },
  );
  acknowledgeNagFinding(
    restApi.latestDeployment!,
    'CdkNagValidationFailure',
    'Serverless-APIGWStructuredLogging reads access-log settings from a deployment\'s StageDescription, which CDK\'s deployments never have (the stage is its own resource); the rule checks the stage itself, whose access log is JSON.',
    { applyToChildren: true, appliesTo: ['Serverless-APIGWStructuredLogging'] },
  );
  // CDK's account CloudWatch role uses the managed policy written for exactly this purpose.
  acknowledgeNagFinding(
    restApi,
    'AwsSolutions-IAM4',
    'API Gateway\'s account-wide CloudWatch role uses AmazonAPIGatewayPushToCloudWatchLogs, the policy AWS maintains for that role; API Gateway writes log groups it names itself, so no narrower resource list exists.',
    { applyToChildren: true, appliesTo: ['Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs'] },
  );
}

function pascalCase(operationId: string): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}
