import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Context } from 'aws-lambda';

// How the local stack runs a Lambda handler: the module a row names, imported once, called in this
// process with the event its trigger would send and a Lambda context. The gateway, the local Step
// Functions, the schedules, the bucket notifications and the queue consumers all invoke through it.

type Handler = (event: unknown, context: Context) => unknown;

export interface LocalInvoker {
  /** Runs the `handler` export of `handlerModule` (relative to the project root) with `event`. */
  invoke<Result = unknown>(handlerModule: string, event: unknown, context?: Context): Promise<Result>;
}

// Per module URL, for the whole process: a handler module's own state (SDK clients, caches) lives
// once, as in a warm Lambda, whichever runner invokes it.
const loadedModules = new Map<string, Promise<Record<string, unknown>>>();

export function createLocalInvoker(projectRoot: string): LocalInvoker {
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
    async invoke<Result>(handlerModule: string, event: unknown, context: Context = lambdaContext(crypto.randomUUID())) {
      const handler = await handlerOf(handlerModule);
      return (await handler(event, context)) as Result;
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
