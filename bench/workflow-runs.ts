import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiKeyService, workspaceStore } from '../src/composition/auth.ts';
import { startLocalStack } from '../src/local/local-stack.ts';
import { dynamoDocumentClient } from '../src/infrastructure/dynamodb-client.ts';
import { workflowStore } from '../src/composition/workflows.ts';
import { publishWorkflowDefinition } from '../src/composition/workflow-publishing.ts';
import { describeMachine, percentile } from './support/machine.ts';
import { SdkCallCounter, type OperationCalls } from './support/sdk-calls.ts';

// The run engine's overhead on the embedded stack (in-process Step Functions, DynamoDB emulator):
// 1. ms per step: a 20-step linear transform workflow against a 1-step one, POST → COMPLETED, and the
//    DynamoDB calls each additional step costs (the bench's own polling GETs, one Query each, left out);
// 2. 100 concurrent runs of a 5-step workflow (two parallel branches and a join), all terminal, runs/s;
// 3. for_each over 100 items (maxConcurrency 10), each a nested run of a 1-step workflow.
const sequentialRuns = Number(process.env.BENCH_SEQUENTIAL ?? 10);
const concurrentRuns = Number(process.env.BENCH_CONCURRENT ?? 100);
const forEachItems = Number(process.env.BENCH_FOR_EACH_ITEMS ?? 100);
const terminal = new Set(['COMPLETED', 'FAILED', 'CLOSED']);
const workspaceId = 'ws_bench_runs';

const dataDir = await mkdtemp(join(tmpdir(), 'paperflow-bench-'));
const stack = await startLocalStack({ dataDir, port: 0, authorizerCacheSeconds: 60 });
// The stack's functions run in this process and share this client: every engine call is counted.
const sdkCalls = new SdkCallCounter();
sdkCalls.attach('DynamoDB', dynamoDocumentClient());
let polls = 0;
try {
  await workspaceStore().ensure({ id: workspaceId, name: 'bench', createdAt: new Date().toISOString() });
  const { secret } = await apiKeyService().create({ workspaceId, name: 'bench', scopes: ['*'], rateLimit: { requestsPerSecond: 1_000_000, burst: 1_000_000 } });
  const api = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${stack.baseUrl}${path}`, { ...init, headers: { authorization: `api-key ${secret}`, 'content-type': 'application/json' } });
    return { status: response.status, body: (await response.json()) as Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any
  };
  const publish = async (id: string, steps: unknown[]) => {
    const published = await publishWorkflowDefinition(workspaceId, JSON.stringify({ id, name: id, steps }), 'json');
    if (!published.ok) throw new Error(JSON.stringify(published.problems));
    return published.workflowId;
  };
  const start = async (workflowId: string, body: unknown = {}) => {
    const started = await api(`/workflows/${workflowId}/runs`, { method: 'POST', body: JSON.stringify(body) });
    if (started.status !== 202) throw new Error(`start answered ${started.status}: ${JSON.stringify(started.body)}`);
    return started.body.id as string;
  };
  const waitForTerminal = async (runId: string, pollMs: number) => {
    for (;;) {
      polls += 1;
      const { body } = await api(`/workflow-runs/${runId}`);
      if (terminal.has(body.status)) return body;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  };
  const timedRun = async (workflowId: string) => {
    const startedAt = performance.now();
    const run = await waitForTerminal(await start(workflowId, { n: 1 }), 5);
    if (run.status !== 'COMPLETED') throw new Error(`${run.id} ended ${run.status}: ${JSON.stringify(run.error)}`);
    return performance.now() - startedAt;
  };
  /** The median latency, and the DynamoDB calls per run by operation (polling Queries taken out). */
  const medianOf = async (workflowId: string) => {
    await timedRun(workflowId);
    const latencies: number[] = [];
    sdkCalls.reset();
    polls = 0;
    for (let run = 0; run < sequentialRuns; run += 1) latencies.push(await timedRun(workflowId));
    const calls = sdkCalls.snapshot();
    const query = calls.get('DynamoDB Query');
    if (query) calls.set('DynamoDB Query', { calls: query.calls - polls, totalMs: query.totalMs * ((query.calls - polls) / query.calls) });
    return { medianMs: percentile(latencies.sort((a, b) => a - b), 0.5), calls };
  };
  /** Calls per additional step: (per run of `many` steps − per run of one step) / (many − 1). */
  const callsPerStep = (one: Map<string, OperationCalls>, many: Map<string, OperationCalls>, steps: number) =>
    [...many]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([name, entry]) => `${name.replace('DynamoDB ', '')} ${((entry.calls - (one.get(name)?.calls ?? 0)) / sequentialRuns / (steps - 1)).toFixed(2)}`)
      .join(', ');

  // 1. Interpreter overhead per step.
  const linearSteps = Array.from({ length: 20 }, (_, index) => ({
    id: `s${index}`,
    type: 'transform',
    ...(index > 0 ? { needs: [`s${index - 1}`] } : {}),
    with: { value: index === 0 ? '{{ body.n }}' : `{{ steps.s${index - 1}.output.value + 1 }}` },
  }));
  const oneStep = await publish('wf_bench_one', [linearSteps[0]]);
  const twentySteps = await publish('wf_bench_twenty', linearSteps);
  const { medianMs: oneStepMs, calls: oneStepCalls } = await medianOf(oneStep);
  const { medianMs: twentyStepMs, calls: twentyStepCalls } = await medianOf(twentySteps);

  // 2. 100 concurrent runs of a 5-step workflow.
  const fiveSteps = await publish('wf_bench_five', [
    { id: 'a', type: 'transform', with: { v: '{{ body.n }}' } },
    { id: 'b', type: 'transform', needs: ['a'], with: { v: '{{ steps.a.output.v + 1 }}' } },
    { id: 'c', type: 'transform', needs: ['a'], with: { v: '{{ steps.a.output.v + 2 }}' } },
    { id: 'd', type: 'transform', needs: ['b', 'c'], with: { v: '{{ steps.b.output.v + steps.c.output.v }}' } },
    { id: 'e', type: 'transform', needs: ['d'], with: { done: true } },
  ]);
  const burstStartedAt = performance.now();
  const runIds = await Promise.all(Array.from({ length: concurrentRuns }, (_, n) => start(fiveSteps, { n })));
  const finished = await Promise.all(runIds.map((runId) => waitForTerminal(runId, 100)));
  const burstMs = performance.now() - burstStartedAt;
  const completed = finished.filter((run) => run.status === 'COMPLETED').length;

  // 3. for_each over 100 items.
  const child = await publish('wf_bench_child', [{ id: 'double', type: 'transform', with: { v: '{{ item * 2 }}' } }]);
  const parent = await publish('wf_bench_parent', [{ id: 'each', type: 'for_each', with: { items: '{{ body.items }}', workflowId: child, maxConcurrency: 10 } }]);
  const forEachStartedAt = performance.now();
  const forEachRun = await waitForTerminal(await start(parent, { items: Array.from({ length: forEachItems }, (_, index) => index) }), 100);
  const forEachMs = performance.now() - forEachStartedAt;

  console.log(`workflow runs (${describeMachine()}, embedded stack, in-process Step Functions)`);
  console.log(`  POST → COMPLETED, median of ${sequentialRuns}: 1 step ${oneStepMs.toFixed(0)} ms, 20 linear steps ${twentyStepMs.toFixed(0)} ms`);
  console.log(`  interpreter overhead: ${((twentyStepMs - oneStepMs) / 19).toFixed(1)} ms per additional step`);
  console.log(`  DynamoDB calls per additional step: ${callsPerStep(oneStepCalls, twentyStepCalls, 20)}`);
  console.log(`  ${concurrentRuns} concurrent runs of a 5-step workflow: ${completed} COMPLETED of ${finished.length} in ${(burstMs / 1000).toFixed(1)} s (${(finished.length / (burstMs / 1000)).toFixed(1)} runs/s)`);
  console.log(`  for_each over ${forEachItems} items (maxConcurrency 10): ${forEachRun.status} ${JSON.stringify({ ...forEachRun.steps[0].output, runIds: undefined })} in ${(forEachMs / 1000).toFixed(1)} s`);
  if (completed !== concurrentRuns || forEachRun.status !== 'COMPLETED') process.exitCode = 1;
} finally {
  await stack.stop();
  await rm(dataDir, { recursive: true, force: true });
}
