import { resolve } from 'node:path';
import { startLocalStack } from '../src/local/local-stack.ts';

// `npm start`: the embedded local stack, no Docker and no cloud account.
const startedAt = performance.now();
const stack = await startLocalStack({
  dataDir: resolve(process.env.PAPERFLOW_DATA_DIR ?? '.paperflow'),
  port: Number(process.env.PORT ?? 4010),
  host: process.env.HOST ?? '127.0.0.1',
  bootstrapApiKey: process.env.PAPERFLOW_BOOTSTRAP_API_KEY || undefined,
  externalEndpoint: process.env.AWS_ENDPOINT_URL || undefined,
  authorizerCacheSeconds: Number(process.env.PAPERFLOW_AUTHORIZER_CACHE_SECONDS ?? 0),
});
console.log(`Paperflow local stack ready at ${stack.baseUrl} (${Math.round(performance.now() - startedAt)} ms)`);

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
