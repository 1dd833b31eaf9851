import { Duration } from 'aws-cdk-lib';
import {
  ApiKeySourceType,
  AuthorizationType,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  RequestAuthorizer,
  RestApi,
  type IResource,
  type MethodOptions,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import { defaultRateLimit } from '../src/auth/api-key-store.ts';
import { apiBasePath, type RouteDefinition } from '../src/platform/route-table.ts';
import { addGatewayErrorResponses } from './gateway-error-responses.ts';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { StateMachineName } from '../src/platform/resource-access.ts';
import { PaperflowFunction, bindRecordsTable } from './paperflow-function.ts';
import type { PaperflowStorage } from './paperflow-storage.ts';
import { bindResourceAccess } from './resource-access.ts';

export interface PublicApiProps {
  routes: readonly RouteDefinition[];
  storage: PaperflowStorage;
  /** For routes whose access names a state machine (starting extractions, for one). */
  stateMachines: Partial<Record<StateMachineName, IStateMachine>>;
  stageName: string;
  /** How long API Gateway reuses an authorizer answer per Authorization header (revocation delay). */
  authorizerCacheTtl: Duration;
}

export const authorizerHandlerModule = 'functions/auth/authorize-request.ts';
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
  /** The function serving each route, by operationId. */
  readonly routeFunctions = new Map<string, PaperflowFunction>();
  private readonly storage: PaperflowStorage;
  private readonly stateMachines: Partial<Record<StateMachineName, IStateMachine>>;
  private readonly authorizerCacheTtl: Duration;

  constructor(scope: Construct, id: string, props: PublicApiProps) {
    super(scope, id);
    this.storage = props.storage;
    this.stateMachines = props.stateMachines;
    this.authorizerCacheTtl = props.authorizerCacheTtl;

    this.restApi = new RestApi(this, 'RestApi', {
      restApiName: 'paperflow-public-api',
      description: 'Paperflow public API v1',
      endpointTypes: [EndpointType.REGIONAL],
      // Multipart uploads and raw files reach the functions as base64 instead of mangled text.
      binaryMediaTypes: ['multipart/form-data', 'application/octet-stream'],
      // The authorizer names the caller's API Gateway key (usageIdentifierKey); clients never send one.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // API Gateway's account-wide CloudWatch role is a per-region singleton another stack may own.
      cloudWatchRole: false,
      deployOptions: {
        stageName: props.stageName,
        tracingEnabled: true,
        metricsEnabled: true,
      },
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
          ? { authorizationType: AuthorizationType.NONE, operationName: route.operationId }
          : { authorizationType: AuthorizationType.CUSTOM, authorizer: this.requestAuthorizer(), apiKeyRequired: true, operationName: route.operationId };
      resource.addMethod(route.method, integration, methodOptions);
      // HEAD is GET without the body: the GET function answers it, and API Gateway sends no body for HEAD.
      if (route.method === 'GET') resource.addMethod('HEAD', integration, { ...methodOptions, operationName: `${route.operationId}Head` });
    }
    // API Gateway prefers a resource's explicit methods; every other method lands on ANY and gets 405
    // with Allow from the route table. Unknown paths below the base path get 404 the same way; unknown
    // paths elsewhere (and below a known resource) get the MISSING_AUTHENTICATION_TOKEN response, 404.
    for (const resource of resourcesByPath.values()) {
      resource.addMethod('ANY', unmatchedRoute, { authorizationType: AuthorizationType.NONE });
    }
    this.restApi.root
      .resourceForPath(apiBasePath)
      .addProxy({ anyMethod: true, defaultIntegration: unmatchedRoute, defaultMethodOptions: { authorizationType: AuthorizationType.NONE } });

    this.defaultUsagePlan = this.restApi.addUsagePlan('DefaultUsagePlan', {
      name: 'paperflow-default',
      description: 'Per-key default rate limit; keys with their own limit get a usage plan of their own.',
      throttle: { rateLimit: defaultRateLimit.requestsPerSecond, burstLimit: defaultRateLimit.burst },
      apiStages: [{ api: this.restApi, stage: this.restApi.deploymentStage }],
    });
  }

  private requestAuthorizer(): RequestAuthorizer {
    if (this.authorizer) return this.authorizer;
    this.authorizerFunction = new PaperflowFunction(this, 'AuthorizeRequest', {
      handlerModule: authorizerHandlerModule,
      description: 'REQUEST authorizer: API key to workspace, scopes and usage plan key',
      timeout: Duration.seconds(10),
    });
    bindRecordsTable(this.authorizerFunction, this.storage.recordsTable, 'read');
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
    bindResourceAccess(fn, route.access, { storage: this.storage, stateMachines: this.stateMachines });
    this.routeFunctions.set(route.operationId, fn);
    return fn;
  }
}

function pascalCase(operationId: string): string {
  return operationId.charAt(0).toUpperCase() + operationId.slice(1);
}
