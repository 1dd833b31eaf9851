import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { apiKeyService } from '../src/composition/auth.ts';
import { dynamoDocumentClient } from '../src/infrastructure/dynamodb-client.ts';
import { startLocalStack } from '../src/local/local-stack.ts';
import { describeMachine, measureThroughput } from './support/machine.ts';

// Authenticated requests/s through the local gateway against raw DynamoDB GetItem/s on the same
// emulator, in the same run: the ratio is what the gateway, authorizer and middy chain cost.
const durationMs = Number(process.env.BENCH_DURATION_MS ?? 5000);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 16);

const dataDir = await mkdtemp(join(tmpdir(), 'paperflow-bench-'));
const bootstrapApiKey = 'pf_live_benchmarkbootstrapkey0001';
const startedAt = performance.now();
// The authorizer cache as deployed (60 s), so the figure reflects the deployed request path.
const stack = await startLocalStack({ dataDir, port: 0, bootstrapApiKey, authorizerCacheSeconds: 60 });
const readyMs = performance.now() - startedAt;

try {
  // A benchmark key gets a high limit rather than switching rate limiting off (DESIGN.md).
  const { secret } = await apiKeyService().create({
    workspaceId: 'ws_default',
    name: 'benchmark',
    scopes: ['*'],
    rateLimit: { requestsPerSecond: 1_000_000, burst: 1_000_000 },
  });
  const tableName = process.env.PAPERFLOW_TABLE_NAME!;
  const client = dynamoDocumentClient();
  const rawGetItem = () => client.send(new GetCommand({ TableName: tableName, Key: { pk: 'WS#ws_default', sk: 'WORKSPACE' } }));
  // An authenticated read that does one GetItem behind the gateway: a file lookup.
  const url = `${stack.baseUrl}/files/file_00000000000000000000000000`;
  const gatewayRequest = async () => {
    const response = await fetch(url, { headers: { authorization: `api-key ${secret}` } });
    await response.arrayBuffer();
    if (response.status !== 404) throw new Error(`Unexpected status ${response.status}`);
  };

  await measureThroughput(rawGetItem, concurrency, 500);
  await measureThroughput(gatewayRequest, concurrency, 500);
  const rawPerSecond = await measureThroughput(rawGetItem, concurrency, durationMs);
  const gatewayPerSecond = await measureThroughput(gatewayRequest, concurrency, durationMs);

  console.log(`gateway throughput (${describeMachine()}, concurrency ${concurrency}, ${durationMs} ms each)`);
  console.log(`  local stack ready:          ${readyMs.toFixed(0)} ms (target < 3000 ms)`);
  console.log(`  raw emulator GetItem:       ${rawPerSecond.toFixed(0)} req/s`);
  console.log(`  authenticated API requests: ${gatewayPerSecond.toFixed(0)} req/s`);
  console.log(`  ratio:                      ${((gatewayPerSecond / rawPerSecond) * 100).toFixed(1)}% of raw GetItem/s (target ≥ 50%)`);
} finally {
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
