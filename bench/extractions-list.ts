import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeyService, workspaceStore } from '../src/composition/auth.ts';
import { extractionStore } from '../src/composition/extractions.ts';
import { startLocalStack } from '../src/local/local-stack.ts';
import { describeMachine, percentile } from './support/machine.ts';
import { seedWorkspace } from './support/extraction-seeding.ts';

// List page 0 (GET /document-insights/extractions) in a workspace of 1k extractions against one of
// 50k, with another workspace's 20k present in the same table. Every list is a Query on an index with
// exact totals from counters, so the figure should not grow with the workspace. Target ratio ≤ 1.5.
const smallCount = Number(process.env.BENCH_SMALL ?? 1_000);
const largeCount = Number(process.env.BENCH_LARGE ?? 50_000);
const otherCount = Number(process.env.BENCH_OTHER ?? 20_000);
const samples = Number(process.env.BENCH_SAMPLES ?? 200);

const dataDir = await mkdtemp(join(tmpdir(), 'paperflow-bench-'));
const stack = await startLocalStack({ dataDir, port: 0, authorizerCacheSeconds: 60 });
try {
  const keys: Record<string, string> = {};
  for (const workspaceId of ['ws_small', 'ws_large', 'ws_other']) {
    await workspaceStore().ensure({ id: workspaceId, name: workspaceId, createdAt: new Date().toISOString() });
    keys[workspaceId] = (await apiKeyService().create({ workspaceId, name: 'bench', scopes: ['*'], rateLimit: { requestsPerSecond: 1_000_000, burst: 1_000_000 } })).secret;
  }
  const store = extractionStore();
  const seedingStartedAt = performance.now();
  await seedWorkspace(store, 'ws_small', smallCount);
  await seedWorkspace(store, 'ws_other', otherCount);
  await seedWorkspace(store, 'ws_large', largeCount);
  console.log(`seeded ${smallCount + largeCount + otherCount} extractions in ${((performance.now() - seedingStartedAt) / 1000).toFixed(1)} s`);

  const requestOf = (workspaceId: string, query: string, expectedTotal?: number) => {
    const url = `${stack.baseUrl}/document-insights/extractions${query}`;
    return async () => {
      const startedAt = performance.now();
      const response = await fetch(url, { headers: { authorization: `api-key ${keys[workspaceId]}` } });
      const body = (await response.json()) as { data: unknown[]; pageInfo: { totalItems: number } };
      if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
      if (expectedTotal !== undefined && body.pageInfo.totalItems !== expectedTotal) throw new Error(`${url}: totalItems ${body.pageInfo.totalItems}, expected ${expectedTotal}`);
      return performance.now() - startedAt;
    };
  };
  // Both workspaces alternate request by request, after a warm-up, so drift hits both alike.
  const measure = async (query: string, expectedTotals: [number | undefined, number | undefined]) => {
    const small = requestOf('ws_small', query, expectedTotals[0]);
    const large = requestOf('ws_large', query, expectedTotals[1]);
    for (let warmUp = 0; warmUp < 50; warmUp += 1) {
      await small();
      await large();
    }
    const durations = { small: [] as number[], large: [] as number[] };
    for (let sample = 0; sample < samples; sample += 1) {
      durations.small.push(await small());
      durations.large.push(await large());
    }
    const summary = (values: number[]) => {
      values.sort((a, b) => a - b);
      return { p50: percentile(values, 0.5), p95: percentile(values, 0.95) };
    };
    return { small: summary(durations.small), large: summary(durations.large) };
  };

  console.log(`extraction list latency (${describeMachine()}, ${samples} sequential requests each, page size 50)`);
  const rows: [string, string][] = [
    ['page 0, default sort', ''],
    ['page 0, status=COMPLETED', '?status=COMPLETED'],
    ['page 0, sortBy=completedAt&sort=asc', '?sortBy=completedAt&sort=asc'],
    ['page 0, labels[customer]=customer-7', '?labels[customer]=customer-7'],
  ];
  for (const [name, query] of rows) {
    const { small, large } = await measure(query, query === '' ? [smallCount, largeCount] : [undefined, undefined]);
    console.log(
      `  ${name.padEnd(38)} ${smallCount}: p50 ${small.p50.toFixed(1)} ms, p95 ${small.p95.toFixed(1)} ms | ${largeCount}: p50 ${large.p50.toFixed(1)} ms, p95 ${large.p95.toFixed(1)} ms | ratio p50 ${(large.p50 / small.p50).toFixed(2)}${name === 'page 0, default sort' ? ' (target ≤ 1.5)' : ''}`,
    );
  }
} finally {
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
