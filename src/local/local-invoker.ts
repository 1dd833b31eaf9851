import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';
import { configurationFor, withConfiguration } from '../composition/configuration.ts';
import { resources as manifestResources } from '../manifest/resources.ts';
import type { ResourceAccess } from '../platform/resource-access.ts';
import type { ResourceDefinition } from '../platform/resource-table.ts';

// How the local stack runs a Lambda handler: the module a row names, imported once, called in this
// process with the event its trigger would send and a Lambda context. The gateway, the local Step
// Functions, the schedules, the bucket notifications and the queue consumers all invoke through it.

type Handler = (event: unknown, context: Context) => unknown;

/** What a row says of its function: the module, and what it may touch (a trigger row's effective access). */
export interface InvokedFunction {
  /** Module exporting `handler`, relative to the project root. */
  handler: string;
  access?: ResourceAccess;
}

export interface LocalInvoker {
  /**
   * Runs the `handler` export of the row's module with `event`, given the configuration the row's
   * function has deployed: only the resources its `access` names (src/composition/configuration.ts).
   */
  invoke<Result = unknown>(invoked: InvokedFunction, event: unknown, context?: Context): Promise<Result>;
}

// Per module URL, for the whole process: a handler module's own state (SDK clients, caches) lives
// once, as in a warm Lambda, whichever runner invokes it.
const loadedModules = new Map<string, Promise<Record<string, unknown>>>();

/**
 * `resources` is the resource table the stack was provisioned from (a test's may extend the
 * manifest's): what a row's `access` names is looked up there.
 */
export function createLocalInvoker(projectRoot: string, resources: readonly ResourceDefinition[] = manifestResources): LocalInvoker {
  const handlerOf = async (handlerModule: string): Promise<Handler> => {
    const url = pathToFileURL(resolve(projectRoot, handlerModule)).href;
    if (!loadedModules.has(url)) {
      const loading = import(url) as Promise<Record<string, unknown>>;
      // A module that failed to load is tried again next time, as a new Lambda instance would.
      loading.catch(() => loadedModules.delete(url));
      loadedModules.set(url, loading);
    }
    const handler = (await loadedModules.get(url)!).handler;
    if (typeof handler !== 'function') throw new Error(`${handlerModule} exports no handler function.`);
    return handler as Handler;
  };
  return {
    async invoke<Result>(invoked: InvokedFunction, event: unknown, context: Context = lambdaContext(crypto.randomUUID())) {
      const handler = await handlerOf(invoked.handler);
      // One process runs every function, with an environment naming every resource: each invocation
      // gets its own row's share of it, as a deployed function's environment holds only that.
      const configuration = configurationFor(invoked.access, resources);
      return (await withConfiguration(configuration, () => handler(event, context))) as Result;
    },
  };
}

// API Gateway gives up after 29 s, the deployed functions' default timeout.
const defaultTimeoutMilliseconds = 29_000;

/** The Lambda context a locally invoked handler gets. */
export function lambdaContext(
  requestId: string,
  invoked: { functionArn?: string; timeoutMilliseconds?: number } = {},
): Context {
  const deadline = Date.now() + (invoked.timeoutMilliseconds ?? defaultTimeoutMilliseconds);
  const invokedFunctionArn = invoked.functionArn ?? 'arn:aws:lambda:local:000000000000:function:paperflow-local';
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: invokedFunctionArn.split(':').at(-1)!,
    functionVersion: '$LATEST',
    invokedFunctionArn,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: 'paperflow-local',
    logStreamName: 'paperflow-local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** A local function ARN for a trigger row, named like the deployed function. */
export function localFunctionArn(name: string, region = process.env.AWS_REGION ?? 'us-east-1'): string {
  return `arn:aws:lambda:${region}:000000000000:function:paperflow-local-${name}`;
}

/** The context of one invocation of a trigger row's function: its name, and its timeout if the row sets one. */
export function triggerContext(trigger: { name: string; timeoutSeconds?: number }, region: string, requestId: string = crypto.randomUUID()): Context {
  return lambdaContext(requestId, {
    functionArn: localFunctionArn(trigger.name, region),
    ...(trigger.timeoutSeconds ? { timeoutMilliseconds: trigger.timeoutSeconds * 1000 } : {}),
  });
}
