import { resolve } from 'node:path';
import { startLocalStack, type RunningLocalStack } from '../src/local/local-stack.ts';
import { LocalStackStartError } from '../src/local/local-stack-errors.ts';

// `npm start`: the embedded local stack, no Docker and no cloud account. The npm script `exec`s node
// with tsx as a loader, so this is the one process npm signals: SIGTERM stops it, nothing stays behind.
const startedAt = performance.now();
let stack: RunningLocalStack;
try {
  stack = await startLocalStack({
    dataDir: resolve(process.env.PAPERFLOW_DATA_DIR ?? '.paperflow'),
    port: Number(process.env.PORT ?? 4010),
    host: process.env.HOST ?? '127.0.0.1',
    bootstrapApiKey: process.env.PAPERFLOW_BOOTSTRAP_API_KEY || undefined,
    externalEndpoint: process.env.AWS_ENDPOINT_URL || undefined,
    authorizerCacheSeconds: Number(process.env.PAPERFLOW_AUTHORIZER_CACHE_SECONDS ?? 0),
  });
} catch (error) {
  // What the operator can fix is one line; anything else keeps its stack trace for whoever debugs it.
  console.error(error instanceof LocalStackStartError ? `paperflow: ${error.message}` : error);
  process.exit(1);
}
console.log(`Paperflow local stack ready at ${stack.baseUrl} (${Math.round(performance.now() - startedAt)} ms)`);
console.log(`Review console: ${new URL('/console/', stack.baseUrl).href}`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    stack.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('Stopping the local stack failed:', error);
        process.exit(1);
      },
    );
  });
}
