import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeyService, workspaceStore } from '../src/auth/wiring.ts';
import { extractionStore } from '../src/extractions/wiring.ts';
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

  const measure = async (workspaceId: string, query: string, expectedTotal?: number) => {
    const url = `${stack.baseUrl}/document-insights/extractions${query}`;
    const request = async () => {
      const response = await fetch(url, { headers: { authorization: `api-key ${keys[workspaceId]}` } });
      const body = (await response.json()) as { data: unknown[]; pageInfo: { totalItems: number } };
      if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
      if (expectedTotal !== undefined && body.pageInfo.totalItems !== expectedTotal) throw new Error(`${url}: totalItems ${body.pageInfo.totalItems}, expected ${expectedTotal}`);
      return body;
    };
    for (let warmUp = 0; warmUp < 20; warmUp += 1) await request();
    const durations: number[] = [];
    for (let sample = 0; sample < samples; sample += 1) {
      const startedAt = performance.now();
      await request();
      durations.push(performance.now() - startedAt);
    }
    durations.sort((a, b) => a - b);
    return { p50: percentile(durations, 0.5), p95: percentile(durations, 0.95) };
  };

  console.log(`extraction list latency (${describeMachine()}, ${samples} sequential requests each, page size 50)`);
  const rows: [string, string, number | undefined][] = [
    ['page 0, default sort', '', undefined],
    ['page 0, status=COMPLETED', '?status=COMPLETED', undefined],
    ['page 0, sortBy=completedAt&sort=asc', '?sortBy=completedAt&sort=asc', undefined],
    ['page 0, labels[customer]=customer-7', '?labels[customer]=customer-7', undefined],
  ];
  for (const [name, query] of rows) {
    const small = await measure('ws_small', query, query === '' ? smallCount : undefined);
    const large = await measure('ws_large', query, query === '' ? largeCount : undefined);
    console.log(
      `  ${name.padEnd(38)} ${smallCount}: p50 ${small.p50.toFixed(1)} ms, p95 ${small.p95.toFixed(1)} ms | ${largeCount}: p50 ${large.p50.toFixed(1)} ms, p95 ${large.p95.toFixed(1)} ms | ratio p50 ${(large.p50 / small.p50).toFixed(2)}${name === 'page 0, default sort' ? ' (target ≤ 1.5)' : ''}`,
    );
  }
} finally {
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
